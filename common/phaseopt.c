/*
 * phaseopt.c - a phase's own values, the [phase] sections of a plan file
 * (see phaseopt.h).
 */
#include "phaseopt.h"

#include "units.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <string.h>

/* The keys a section takes and the phases each means something to. */
static const struct {
	int id;
	unsigned phases;
	const char *what;
} keys[] = {
	{ ST_OPT_BLOCK, ST_PHASES_DATA, "the data phases" },
	{ ST_OPT_DIRECT, ST_PHASES_DATA, "the data phases" },
	{ ST_OPT_FSYNC, ST_PHASES_WRITE | ST_PHASES_MIXED | 1u << ST_PHASE_CREATE,
	  "the phases that write (write, rewrite, randwrite, rw, randrw, create)" },
	{ ST_OPT_RWMIX, ST_PHASES_MIXED, "the mixed phases (rw, randrw)" },
	{ ST_OPT_RUNTIME, ST_PHASES_DATA, "the data phases" },
	{ ST_OPT_RAMP, ST_PHASES_DATA, "the data phases" },
};

static int key_index(int id)
{
	for (size_t i = 0; i < ST_ARRAY_LEN(keys); i++)
		if (keys[i].id == id)
			return (int)i;
	return -1;
}

int st_phase_key(int id)
{
	return key_index(id) >= 0;
}

const char *st_phase_keys_text(void)
{
	return "block, direct, fsync, rwmix, runtime, ramp";
}

int st_phase_section(struct st_config *cfg, const char *line, int lineno, int known,
		     const char *where, int *phase, char *err, size_t errn)
{
	size_t len = strlen(line);
	if (len < 2 || line[0] != '[' || line[len - 1] != ']')
		return st_opt_fail(err, errn, where, known ? "expected '[phase]', got '%s'"
						    : "expected 'key = value' (not a plan file?)",
			    line);
	char name[64];
	size_t k = 0;
	for (const char *c = line + 1; c < line + len - 1 && k + 1 < sizeof(name); c++)
		if (!isspace((unsigned char)*c))
			name[k++] = *c;
	name[k] = '\0';
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		if (strcmp(name, st_phase_names[p]) != 0)
			continue;
		if (cfg->ph.line[p])
			return st_opt_fail(err, errn, where, "section [%s] is given twice (first on line %d)",
				    name, cfg->ph.line[p]);
		cfg->ph.line[p] = lineno;
		*phase = p;
		return 0;
	}
	if (!known)
		return st_opt_fail(err, errn, where, "unknown section (not a plan file?)");
	return st_opt_fail(err, errn, where,
		    "unknown section '[%s]': a section is a phase (write, rewrite, read, reread, "
		    "randread, randwrite, rw, randrw, create, stat, open, remove)",
		    name);
}

int st_phase_set(struct st_config *cfg, int phase, const char *key, const char *val, int known,
		 const char *where, char *err, size_t errn)
{
	const char *pn = st_phase_names[phase];
	int id = st_opt_find(key), k = id < 0 ? -1 : key_index(id);
	if ((id < 0 || (st_options[id].flags & ST_OF_NO_PLAN)) && !known)
		return st_opt_fail(err, errn, where, "unknown key (not a plan file?)");
	if (id < 0 || (st_options[id].flags & ST_OF_NO_PLAN))
		return st_opt_fail(err, errn, where, "[%s]: unknown key '%s'", pn, key);
	if (k < 0)
		return st_opt_fail(err, errn, where,
			    "[%s]: '%s' cannot be per phase (it is the run's or the combination's; "
			    "a section takes %s)",
			    pn, key, st_phase_keys_text());
	if (!((1u << phase) & keys[k].phases))
		return st_opt_fail(err, errn, where, "[%s]: '%s' means something only to %s", pn, key,
			    keys[k].what);
	if (cfg->ph.given[phase][id])
		return st_opt_fail(err, errn, where, "[%s]: key '%s' is given twice", pn, key);
	if (strchr(val, ','))
		return st_opt_fail(err, errn, where,
			    "[%s]: '%s = %s': a section takes one value (sweep it run-wide, before "
			    "the sections)",
			    pn, key, val);
	char e[ST_ERR_MAX];
	int64_t v;
	if (st_opt_parse_value(id, val, &v, e, sizeof(e)))
		return st_opt_fail(err, errn, where, "[%s]: %s", pn, e);
	cfg->ph.given[phase][id] = 1;
	cfg->ph.v[phase][id] = v;
	return 0;
}

int st_phase_any(const struct st_config *cfg)
{
	for (int p = 0; p < ST_PHASE_COUNT; p++)
		if (cfg->ph.line[p])
			return 1;
	return 0;
}

int st_phase_check(const struct st_config *cfg, char *err, size_t errn)
{
	unsigned phases = st_config_phases(cfg);
	int stonewall_on = 0;
	for (int k = 0; k < cfg->o[ST_OPT_STONEWALL].n; k++)
		stonewall_on |= cfg->o[ST_OPT_STONEWALL].v[k] == ST_ON;
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		if (!cfg->ph.line[p])
			continue;
		const char *pn = st_phase_names[p];
		const char *file = cfg->o[ST_OPT_PLAN].n ? cfg->o[ST_OPT_PLAN].s : "the plan";
		if (!(phases & (1u << p)))
			return st_opt_fail(err, errn, NULL, "%s:%d: [%s]: %s is not among --phases", file,
				    cfg->ph.line[p], pn, pn);
		const uint8_t *g = cfg->ph.given[p];
		const int64_t *v = cfg->ph.v[p];
		if (g[ST_OPT_RUNTIME] && stonewall_on)
			return st_opt_fail(err, errn, NULL,
				    "%s:%d: [%s]: runtime: a time-based phase has no first client to "
				    "stop at (--stonewall on)",
				    file, cfg->ph.line[p], pn);
		int64_t span = (g[ST_OPT_RUNTIME] ? v[ST_OPT_RUNTIME] : 0) +
			       (g[ST_OPT_RAMP] ? v[ST_OPT_RAMP] : 0);
		if (span >= cfg->o[ST_OPT_DEADLINE].v[0])
			return st_opt_fail(err, errn, NULL,
				    "%s:%d: [%s]: runtime and ramp do not end before --deadline", file,
				    cfg->ph.line[p], pn);
	}
	return 0;
}

void st_phase_combo(const struct st_config *cfg, int phase, const struct st_combo *base,
		    struct st_combo *out)
{
	*out = *base;
	if (phase < 0 || phase >= ST_PHASE_COUNT)
		return;
	for (size_t k = 0; k < ST_ARRAY_LEN(keys); k++)
		if (cfg->ph.given[phase][keys[k].id])
			out->v[keys[k].id] = cfg->ph.v[phase][keys[k].id];
}

int64_t st_phase_max_block(const struct st_config *cfg, unsigned phases,
			   const struct st_combo *base)
{
	int64_t m = base->v[ST_OPT_BLOCK];
	for (int p = 0; p < ST_PHASE_COUNT; p++)
		if ((phases & (1u << p)) && cfg->ph.given[p][ST_OPT_BLOCK] &&
		    cfg->ph.v[p][ST_OPT_BLOCK] > m)
			m = cfg->ph.v[p][ST_OPT_BLOCK];
	return m;
}

void st_phase_text(const struct st_config *cfg, int phase, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < ST_ARRAY_LEN(keys) && off + 1 < n; k++) {
		int id = keys[k].id;
		if (!cfg->ph.given[phase][id])
			continue;
		char v[64];
		st_opt_value_text(cfg, id, cfg->ph.v[phase][id], v, sizeof(v));
		off += (size_t)snprintf(buf + off, n - off, "%s%s=%s", off ? " " : "",
					st_options[id].name, v);
	}
}

void st_phase_dump(const struct st_config *cfg, FILE *out)
{
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		if (!cfg->ph.line[p])
			continue;
		fprintf(out, "[%s]\n", st_phase_names[p]);
		for (size_t k = 0; k < ST_ARRAY_LEN(keys); k++) {
			int id = keys[k].id;
			if (!cfg->ph.given[p][id])
				continue;
			char v[64];
			st_opt_value_text(cfg, id, cfg->ph.v[p][id], v, sizeof(v));
			fprintf(out, "%s = %s\n", st_options[id].name, v);
		}
	}
}

void st_phase_print(const struct st_config *cfg, unsigned phases, FILE *out)
{
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		char text[512];
		if (!(phases & (1u << p)) || !cfg->ph.line[p])
			continue;
		st_phase_text(cfg, p, text, sizeof(text));
		fprintf(out, "      %s: %s (its own, in every combination; the rest as below)\n",
			st_phase_names[p], text[0] ? text : "-");
	}
}
