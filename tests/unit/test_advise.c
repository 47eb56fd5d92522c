/* advise's line to paste (coordinator/report/advise.h): the mount command
 * of the kernel client's best, the options of the others. */
#include "../../common/options.h"
#include "../../coordinator/report/advise.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static void set(struct st_config *c, int id, const char *v)
{
	char err[ST_ERR_MAX];
	CHECK(st_config_set(c, id, v, 1, NULL, err, sizeof(err)) == 0);
}

static void value(struct st_adv_cell *c, int id, const char *v)
{
	char err[ST_ERR_MAX];
	CHECK(st_opt_parse_value(id, v, &c->v[id], err, sizeof(err)) == 0);
}

/* An advise of one phase whose one cell (*c, every option unset) is the
 * best, the defaults for its config; NULL when out of memory. */
static struct st_adv *one_cell(struct st_adv_cell **c)
{
	struct st_adv *a = calloc(1, sizeof(*a));
	*c = calloc(1, sizeof(**c));
	if (a)
		a->cfg = malloc(sizeof(*a->cfg));
	CHECK(a && *c && a->cfg);
	if (!a || !*c || !a->cfg) {
		if (a)
			free(a->cfg);
		free(a);
		free(*c);
		return NULL;
	}
	st_config_defaults(a->cfg);
	for (int i = 0; i < ST_OPT_COUNT; i++)
		(*c)->v[i] = ST_UNSET;
	a->nphase = 1;
	a->ph[0].cell = *c;
	a->ph[0].ncell = 1;
	a->ph[0].best = 0;
	return a;
}

static void one_cell_free(struct st_adv *a, struct st_adv_cell *c)
{
	free(a->cfg);
	free(a);
	free(c);
}

static void line_is(struct st_adv *a, struct st_adv_phase *p, const char *want)
{
	char line[1024];
	st_advise_line(a, p, line, sizeof(line));
	CHECK(!strcmp(line, want));
	if (strcmp(line, want))
		fprintf(stderr, "    %s\n    (wanted %s)\n", line, want);
}

static void mount_line(void)
{
	struct st_adv_cell *c;
	struct st_adv *a = one_cell(&c);
	if (!a)
		return;
	value(c, ST_OPT_VERS, "4.2");
	value(c, ST_OPT_RSIZE, "1m");
	value(c, ST_OPT_SYNC, "async");
	value(c, ST_OPT_HARD, "soft");
	value(c, ST_OPT_NCONNECT, "4");
	value(c, ST_OPT_BLOCK, "1m");
	a->vary[ST_OPT_RSIZE] = a->vary[ST_OPT_BLOCK] = 1;
	struct st_adv_phase *p = &a->ph[0];
	set(a->cfg, ST_OPT_MOUNT, "nfs1:/export");
	set(a->cfg, ST_OPT_TARGET, "/mnt/bench");
	line_is(a, p, "mount -t nfs -o vers=4.2,rsize=1048576,async,soft,nconnect=4 nfs1:/export "
		      "/mnt/bench   (measured with --block 1m)");
	/* libnfs: the URL and every NFS option as stcluster's */
	st_config_defaults(a->cfg);
	set(a->cfg, ST_OPT_ENGINE, "libnfs");
	set(a->cfg, ST_OPT_TARGET, "nfs://nfs1/export?version=3");
	c->v[ST_OPT_VERS] = ST_UNSET;
	line_is(a, p, "stcluster --engine libnfs --target 'nfs://nfs1/export?version=3' --rsize 1m "
		      "--sync async --hard soft --nconnect 4 --block 1m");
	one_cell_free(a, c);
}

/* --rwsize: rsize and wsize are its value; the mount line has them once in
 * -o (not rwsize again as "measured with"), stcluster's line --rwsize alone */
static void rwsize_line(void)
{
	struct st_adv_cell *c;
	struct st_adv *a = one_cell(&c);
	if (!a)
		return;
	value(c, ST_OPT_RWSIZE, "1m");
	value(c, ST_OPT_RSIZE, "1m");
	value(c, ST_OPT_WSIZE, "1m");
	value(c, ST_OPT_HARD, "hard");
	a->vary[ST_OPT_RWSIZE] = 1;
	struct st_adv_phase *p = &a->ph[0];
	set(a->cfg, ST_OPT_MOUNT, "nfs1:/export");
	set(a->cfg, ST_OPT_TARGET, "/mnt/bench");
	line_is(a, p, "mount -t nfs -o rsize=1048576,wsize=1048576,hard nfs1:/export /mnt/bench");
	st_config_defaults(a->cfg);
	set(a->cfg, ST_OPT_ENGINE, "libnfs");
	set(a->cfg, ST_OPT_TARGET, "nfs://nfs1/export?version=3");
	line_is(a, p, "stcluster --engine libnfs --target 'nfs://nfs1/export?version=3' --hard hard "
		      "--rwsize 1m");
	/* one --rwsize for the whole run (not varying): libnfs's line still has it */
	a->vary[ST_OPT_RWSIZE] = 0;
	line_is(a, p, "stcluster --engine libnfs --target 'nfs://nfs1/export?version=3' --hard hard "
		      "--rwsize 1m");
	one_cell_free(a, c);
}

const struct unit_test unit_advise[] = {
	{ "advise: the line to paste is a mount command with --mount, the options otherwise",
	  mount_line },
	{ "advise: --rwsize's line names rsize and wsize once (mount) or --rwsize alone", rwsize_line },
	{ NULL, NULL },
};
