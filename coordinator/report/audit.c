/*
 * audit.c - `stcluster audit RUN`: were the stored results of a run
 * altered? The hashes and what they cover are the store's (store/hash.c);
 * this file prints and chooses the exit status: 0 every hash matches
 * (or the run has none), 1 something was altered (or could not be read),
 * 2 bad input. The store is opened read-only and left unchanged.
 */
#include "subcmd.h"

#include "../../common/options.h"
#include "../../common/util.h"
#include "../store/output.h"
#include "../store/runs.h"
#include "../store/store.h"

#include <stdio.h>
#include <string.h>

static const char *state_name(enum st_audit_state s)
{
	return s == ST_AUDIT_OK ? "ok" : s == ST_AUDIT_DIFFERS ? "altered" : "missing";
}

/* What a hash that does not match means, per item. */
static void explain(const struct st_audit_item *it, int others_ok, char *buf, size_t n)
{
	if (it->state == ST_AUDIT_MISSING) {
		snprintf(buf, n, "no hash stored, in a run that has hashes: it was removed");
		return;
	}
	const char *what =
		strcmp(it->what, "config") == 0 ? "the run's configuration or its host rows changed"
		: strcmp(it->what, "baselines") == 0 ? "its baseline rows changed"
		: strcmp(it->what, "combination") == 0
			? "its rows in combo or a result table, or its stored hash, changed"
		: others_ok ? "a combination was added or removed, or the run's status or finish time "
			      "changed"
			    : "it covers the altered hashes above";
	snprintf(buf, n, "%s: stored %.12s, rows give %.12s", what, it->stored, it->computed);
}

static void print_table(const struct st_audit *a, const char *run, const char *db)
{
	printf("audit of run %s in %s\n", run, db);
	if (!a->hashed) {
		printf("no hashes stored (written by an older stcluster): nothing to check\n");
		return;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct st_audit_item *it = &a->items[i];
		char label[32], why[512];
		if (it->seq >= 0)
			snprintf(label, sizeof(label), "seq %lld", (long long)it->seq);
		else
			snprintf(label, sizeof(label), "%s", it->what);
		if (it->state == ST_AUDIT_OK) {
			if (it->note[0])
				printf("ok       %-12s %s\n", label, it->note);
			else
				printf("ok       %s\n", label);
			continue;
		}
		explain(it, a->altered == 1, why, sizeof(why));
		/* the result's note hints at what changed (seqs missing, ...) */
		int hint = strcmp(it->what, "result") == 0 && it->note[0];
		printf("ALTERED  %-12s %s%s%s\n", label, why, hint ? "; " : "", hint ? it->note : "");
	}
	if (!a->altered) {
		printf("ok: all %zu hashes match\n", a->n);
		return;
	}
	printf("altered: %d of %zu hashes differ", a->altered, a->n);
	const char *sep = " (";
	for (size_t i = 0; i < a->n; i++) {
		const struct st_audit_item *it = &a->items[i];
		if (it->state == ST_AUDIT_OK)
			continue;
		if (it->seq >= 0)
			printf("%sseq %lld", sep, (long long)it->seq);
		else
			printf("%s%s", sep, it->what);
		sep = ", ";
	}
	printf(")\n");
}

static void print_json(const struct st_audit *a, const char *run, const char *db)
{
	/* the document of every subcommand (store/output.h, sql/schema.json):
	 * the audit's outcome its summary, a row per hash */
	printf("{\"schema_version\": %d, \"command\": \"audit\", \"run_id\": ", ST_JSON_SCHEMA_VERSION);
	st_json_string(stdout, run);
	fputs(", \"summary\": {\"db\": ", stdout);
	st_json_string(stdout, db);
	printf(", \"hashed\": %s, \"status\": \"%s\", \"checked\": %zu, \"altered\": %d,\n",
	       a->hashed ? "true" : "false",
	       !a->hashed ? "no hashes" : a->altered ? "altered" : "ok", a->n, a->altered);
	fputs(" \"altered_seqs\": [", stdout);
	const char *sep = "";
	for (size_t i = 0; i < a->n; i++)
		if (a->items[i].state != ST_AUDIT_OK && a->items[i].seq >= 0) {
			printf("%s%lld", sep, (long long)a->items[i].seq);
			sep = ", ";
		}
	fputs("]},\n \"rows\": [", stdout);
	for (size_t i = 0; i < a->n; i++) {
		const struct st_audit_item *it = &a->items[i];
		printf("%s\n  {\"what\": \"%s\", \"seq\": ", i ? "," : "", it->what);
		if (it->seq >= 0)
			printf("%lld", (long long)it->seq);
		else
			fputs("null", stdout);
		printf(", \"status\": \"%s\", \"stored\": ", state_name(it->state));
		if (it->stored[0])
			st_json_string(stdout, it->stored);
		else
			fputs("null", stdout);
		fputs(", \"computed\": ", stdout);
		st_json_string(stdout, it->computed);
		fputs(", \"note\": ", stdout);
		st_json_string(stdout, it->note);
		fputs("}", stdout);
	}
	fputs(a->n ? "\n ]}\n" : "]}\n", stdout);
}

int st_cmd_audit(const struct st_subargs *a)
{
	if (!a->npos) {
		fprintf(stderr, "stcluster audit: needs a run (stcluster audit RUN)\n");
		return 2;
	}
	char err[ST_ERR_MAX], run[64];
	struct st_store *s = st_subcmd_store(a);
	if (!s)
		return 2;
	if (st_run_resolve(st_store_db(s), a->pos[0], run, sizeof(run), err, sizeof(err))) {
		fprintf(stderr, "stcluster audit: %s\n", err);
		st_store_close(s);
		return 2;
	}
	struct st_audit au;
	if (st_store_audit(s, run, &au, err, sizeof(err))) {
		/* a table or column the hashes read is gone: not the store as written */
		fprintf(stderr, "stcluster audit: run %s: cannot recompute its hashes: %s\n", run, err);
		st_store_close(s);
		return 1;
	}
	if (a->format == ST_FMT_JSON)
		print_json(&au, run, a->db);
	else
		print_table(&au, run, a->db);
	int rc = au.altered ? 1 : 0;
	st_audit_free(&au);
	st_store_close(s);
	return rc; /* a write error: st_cli_run says so */
}
