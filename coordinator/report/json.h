/*
 * json.h - the pieces of SQL the subcommands' JSON rows are made of
 * (schema: sql/schema.json): each row one json_object(...), its keys
 * snake_case, the same in every run (null where they do not apply), its
 * numbers in base units (bytes, ns, bytes per second), the combination's
 * options as an object of every sweep option. And the latency percentiles
 * report asks the stored histograms for (--percentiles).
 */
#ifndef ST_REPORT_JSON_H
#define ST_REPORT_JSON_H

#include "../../common/strbuf.h"

#include <stddef.h>

#define ST_PCT_MAX 16			/* percentiles one --percentiles may list */
#define ST_PCT_DEFAULT "50,99"

/* The percentiles --percentiles lists, in the order given. */
struct st_pcts {
	int n;
	double q[ST_PCT_MAX]; /* each in (0, 100) */
};

/* Parse a --percentiles list ("50,90,99,99.9"; NULL: ST_PCT_DEFAULT) into
 * *p: 0, or -1 with err naming the value that is not one. */
int st_pcts_parse(const char *text, struct st_pcts *p, char *err, size_t n);

/* "p99.9" for 99.9, into buf. */
void st_pct_label(double q, char *buf, size_t n);

/* Append the SQL of percentile q (0-100) of the latency of the phase the
 * aliases c (combo) and p (phase_run) name, in ns: the client ranks'
 * stored histograms merged (st_hist_quantile). */
void st_json_pct_sql(struct st_strbuf *b, double q);

/* Append json_object(...) of every sweep option, its value the column
 * prefix"name" holds (sizes in bytes, unset: null). */
void st_json_options_sql(struct st_strbuf *b, const char *prefix);

/* The JSON key of option id: its name in snake_case (mount-opts is
 * mount_opts), as every options object of --format json spells it. */
void st_json_opt_key(int id, char *key, size_t n);

/* The same, the options a phase may have of its own (common/phaseopt.h)
 * the phase's: COALESCE(phase"phase_name", prefix"name"); phase NULL: the
 * combination's. */
void st_json_options_phase_sql(struct st_strbuf *b, const char *prefix, const char *phase);

/* Append the SQL of option id's value: combo"name", or with phase (an
 * alias of phase_run, "p.") and an option a phase may have of its own,
 * the phase's value. */
void st_opt_col_sql(struct st_strbuf *b, int id, const char *combo, const char *phase);

/* Append the JSON array of the percentiles of p:
 * [{"percentile": 50, "ns": ...}, ...] */
void st_json_pcts_sql(struct st_strbuf *b, const struct st_pcts *p);

/* The figure of a phase in base units: SQL of x (MB/s, or IOPS for the
 * metadata phases, as the named queries give it) for the phase in column
 * ph, and the name of its unit. */
/* The phases whose figure is operations per second (an SQL list; the
 * named queries in sql/ spell it out, as SQL has no constants). */
#define ST_SQL_META_PHASES "('create', 'stat', 'readdir', 'open', 'remove', 'mkdir', 'dirstat', 'rmdir')"
#define ST_JSON_META(ph) ph " IN " ST_SQL_META_PHASES
#define ST_JSON_FIG(ph, x) "(CASE WHEN " ST_JSON_META(ph) " THEN (" x ") ELSE (" x ") * 1e6 END)"
#define ST_JSON_UNIT(ph) "CASE WHEN " ST_JSON_META(ph) " THEN 'ops_per_s' ELSE 'bytes_per_s' END"

/* The CPU keys of a row from the columns of view phase_cpu (prefix P). */
#define ST_JSON_CPU(P)                                                                  \
	"'client_cpu_pct', " P "client_cpu_pct, "                                     \
	"'client_cpu_ns_per_byte', " P "client_cpu_us_per_mb / 1e3, "                 \
	"'io_thread_cpu_ns_per_byte', " P "io_cpu_us_per_mb / 1e3, "                  \
	"'server_cpu_pct', " P "server_cpu_pct, "                                     \
	"'server_cpu_ns_per_byte', " P "server_cpu_us_per_mb / 1e3"

#endif
