/*
 * combo.c - one combination's rows (see store.h): the combo row with a
 * column per sweep option, every rank's effective options and failures,
 * and each phase's rows (phase_run, rank_result, thread_result, interval,
 * rpc_stat, sample), all in one transaction with the combination's hash
 * and the run's result hash.
 *
 * The rows are written in the order they always were (the rowid of a
 * sample row is that order), each kind from its column table (rows.c).
 */
#include "store.h"

#include "db.h"
#include "hash.h"
#include "rows.h"

#include "../../common/options.h"
#include "../../common/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An option value in its column's type: NULL when unset, enum and string
 * values as text (a set's: its name), numbers as integers. */
static void bind_value(sqlite3_stmt *st, int i, const struct st_config *cfg, int id, int64_t v)
{
	if (v == ST_UNSET)
		sqlite3_bind_null(st, i);
	else if (st_options[id].type == ST_T_ENUM)
		st_db_bind_text(st, i, st_options[id].choices[v]);
	else if (st_options[id].type == ST_T_DATA || id == ST_OPT_SET) {
		/* a set's column holds its name */
		char text[ST_STR_MAX];
		st_opt_value_text(cfg, id, v, text, sizeof(text));
		st_db_bind_text(st, i, text);
	} else if (st_options[id].type == ST_T_STRING)
		st_db_bind_text(st, i, st_optval_str(&cfg->o[id], (int)v));
	else
		sqlite3_bind_int64(st, i, v);
}

/* The item "name: why" of an effective note ("a: x; b: y"): its why, in
 * out; NULL when there is none. */
static const char *note_for(const char *note, const char *name, char *out, size_t n)
{
	size_t l = strlen(name);
	for (const char *p = note; p && *p;) {
		const char *end = strstr(p, "; ");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > l + 2 && strncmp(p, name, l) == 0 && p[l] == ':' && p[l + 1] == ' ') {
			snprintf(out, n, "%.*s", (int)(len - l - 2), p + l + 2);
			return out;
		}
		p = end ? end + 2 : NULL;
	}
	return NULL;
}

/* The combo row: its own columns, then one per sweep option and the
 * effective value of each NFS option (eff: the first client's, or NULL),
 * in the order store.c prepared them. */
static int insert_combo(struct st_store *s, const struct st_combo_record *c,
			const struct st_effective *eff, int64_t *combo_id, char *err, size_t n)
{
	struct st_row_key key = { .run_id = c->run_id };
	struct st_combo_row row = { .seq = (int32_t)c->combo->seq,
				    .matrix_index = (int32_t)c->combo->index,
				    .iteration = (int32_t)c->combo->iteration,
				    .stage = c->combo->stage,
				    .status = c->status,
				    .message = c->message,
				    .direct_fallback = c->direct_fallback,
				    .mount_options = eff && eff->options[0] ? eff->options : NULL };
	st_iso_time(c->started_wall_ns, row.started_at, sizeof(row.started_at));
	st_iso_time(c->finished_wall_ns, row.finished_at, sizeof(row.finished_at));
	sqlite3_stmt *q = s->ins_combo;
	st_bind_combo(q, &key, &row);
	int col = st_rows_combo.ncols + 1;
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!(st_options[i].flags & ST_OF_SWEEP))
			continue;
		bind_value(q, col++, c->cfg, i, c->combo->v[i]);
		if (st_options[i].flags & ST_OF_NFS)
			bind_value(q, col++, c->cfg, i,
				   eff && st_effective_known(eff, i) ? eff->v[i] : ST_UNSET);
	}
	if (st_db_step(s->db, q, err, n))
		return -1;
	*combo_id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

/* One rank's effective_option rows: each NFS option asked for or known,
 * and a 'lock' row for an option the mount driver added unasked (nolock). */
static int store_effective(struct st_store *s, int64_t combo_id, int rank,
			   const struct st_combo_record *c, char *err, size_t n)
{
	const struct st_effective *e = &c->prep[rank].eff;
	struct st_row_key key = { .combo_id = combo_id, .rank = rank };
	char req[256], got[256], why[sizeof(e->note)];
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		int asked = c->combo->v[i] != ST_UNSET, known = st_effective_known(e, i);
		/* a server option: the rows of the ranks that applied it */
		int server = (st_options[i].flags & ST_OF_SERVER) != 0;
		if (server && i == ST_OPT_SERVER_EXPORT)
			known = e->server_export[0] != '\0';
		if (!(st_options[i].flags & ST_OF_NFS) && !(server && known))
			continue;
		if (!asked && !known)
			continue;
		if (asked)
			st_opt_value_text(c->cfg, i, c->combo->v[i], req, sizeof(req));
		if (known && i == ST_OPT_SERVER_EXPORT)
			st_copy(got, sizeof(got), e->server_export);
		else if (known)
			st_opt_value_text(c->cfg, i, e->v[i], got, sizeof(got));
		struct st_eff_row row = {
			.option = st_options[i].name,
			.requested = asked ? req : NULL,
			.effective = known ? got : NULL,
			.maximum = e->max[i],
			.note = note_for(e->note, st_options[i].name, why, sizeof(why)),
		};
		st_bind_eff(s->ins_eff, &key, &row);
		if (st_db_step(s->db, s->ins_eff, err, n))
			return -1;
	}
	if (!e->added[0])
		return 0;
	char added[sizeof(e->added) + 1];
	st_copy(added, sizeof(added), e->added);
	struct st_eff_row lock = { .option = "lock",
				   .effective = added,
				   .note = note_for(e->note, "lock", why, sizeof(why)) };
	st_bind_eff(s->ins_eff, &key, &lock);
	return st_db_step(s->db, s->ins_eff, err, n);
}

/* Into row: the phase's own values (a [phase] section of the plan). */
static void own_values(const struct st_config *cfg, int phase, struct st_phase_row *row)
{
	static const uint8_t none[ST_OPT_COUNT];
	const uint8_t *g = cfg ? cfg->ph.given[phase] : none;
	const int64_t *v = cfg ? cfg->ph.v[phase] : NULL;
	row->own_block = g[ST_OPT_BLOCK] ? v[ST_OPT_BLOCK] : ST_UNSET;
	row->own_rwmix = g[ST_OPT_RWMIX] ? v[ST_OPT_RWMIX] : ST_UNSET;
	row->own_runtime = g[ST_OPT_RUNTIME] ? v[ST_OPT_RUNTIME] : ST_UNSET;
	row->own_ramp = g[ST_OPT_RAMP] ? v[ST_OPT_RAMP] : ST_UNSET;
	row->own_direct = g[ST_OPT_DIRECT] ? st_options[ST_OPT_DIRECT].choices[v[ST_OPT_DIRECT]] : NULL;
	row->own_fsync = g[ST_OPT_FSYNC] ? st_options[ST_OPT_FSYNC].choices[v[ST_OPT_FSYNC]] : NULL;
}

/* The phase_run rows of the phases the engine cannot run, with why. */
static int store_skipped(struct st_store *s, int64_t combo_id, const struct st_combo_record *c,
			 char *err, size_t n)
{
	for (int p = 0; p < ST_PHASE_COUNT; p++) {
		if (!(c->skipped_phases >> p & 1))
			continue;
		struct st_row_key key = { .combo_id = combo_id, .phase = st_phase_names[p] };
		struct st_phase_row row = { .order = p,
					    .status = "skipped",
					    .message = c->skip_message };
		own_values(c->cfg, p, &row);
		st_bind_phase(s->ins_phase, &key, &row);
		if (st_db_step(s->db, s->ins_phase, err, n))
			return -1;
	}
	return 0;
}

/* A combo_failure row for each rank whose preparation failed. */
static int store_failures(struct st_store *s, int64_t combo_id, const struct st_combo_record *c,
			  char *err, size_t n)
{
	for (int r = 0; c->prep && r < c->nranks; r++) {
		if (!c->prep[r].err)
			continue;
		struct st_row_key key = { .combo_id = combo_id, .rank = r };
		st_bind_failure(s->ins_failure, &key, &c->prep[r]);
		if (st_db_step(s->db, s->ins_failure, err, n))
			return -1;
	}
	return 0;
}

/* One rank's RPC counts of a phase: a row per operation, one for the
 * transports. */
static int store_rpc(struct st_store *s, const struct st_row_key *phase,
		     const struct st_rpc_result *x, char *err, size_t n)
{
	if (x->source == ST_RPC_NONE || x->source > ST_RPC_LIBNFS)
		return 0;
	/* libnfs: the time of each call of the three it makes */
	static const char *const timed[ST_RPC_HISTS] = { "READ", "WRITE", "COMMIT" };
	struct st_row_key key = *phase;
	key.rank = (int32_t)x->rank;
	struct st_rpc_row row = { .source = st_rpc_source_names[x->source], .is_op = 1 };
	for (uint32_t i = 0; i < x->nops && i < ST_RPC_OPS; i++) {
		char name[sizeof(x->op[i].name) + 1];
		st_copy(name, sizeof(name), x->op[i].name);
		row.op = x->op[i];
		row.basis = strcmp(name, "WRITE") == 0 && x->basis != ST_RPC_BASIS_NONE &&
					    x->basis <= ST_RPC_BASIS_INFERRED
				    ? st_rpc_basis_names[x->basis]
				    : NULL;
		row.rtt = NULL;
		for (int h = 0; h < ST_RPC_HISTS; h++)
			if (x->source == ST_RPC_LIBNFS && !strcmp(name, timed[h]) &&
			    x->hist[h].count)
				row.rtt = &x->hist[h];
		st_bind_rpc(s->ins_rpc, &key, &row);
		if (st_db_step(s->db, s->ins_rpc, err, n))
			return -1;
	}
	struct st_rpc_row xprt = { .source = row.source,
				   .xprts = x->xprts,
				   .connects = x->connects,
				   .sends = x->sends,
				   .recvs = x->recvs,
				   .bad_xids = x->bad_xids,
				   .backlog_u = x->backlog_u };
	st_copy(xprt.op.name, sizeof(xprt.op.name), "xprt");
	memcpy(xprt.note, x->note, sizeof(xprt.note));
	st_bind_rpc(s->ins_rpc, &key, &xprt);
	return st_db_step(s->db, s->ins_rpc, err, n);
}

/* The phase_run row of a phase that ran: the barrier releases' spread, the
 * histograms merged over the ranks, the first error, the cache drop (of
 * the first rank that did one). */
static int store_phase_row(struct st_store *s, const struct st_row_key *key, int nranks,
			   const struct st_config *cfg, const struct st_phase_record *p, char *err,
			   size_t n)
{
	int any_err = 0;
	char first_msg[ST_ERR_MAX] = "";
	struct st_hist h, hr, hw;
	st_hist_init(&h);
	st_hist_init(&hr);
	st_hist_init(&hw);
	struct st_phase_row row = { .order = p->phase,
				    .ran = 1,
				    .release_min_ns = INT64_MAX,
				    .release_max_ns = INT64_MIN,
				    .gathered_ns = p->gathered_ns,
				    .lat = &h,
				    .read = &hr,
				    .write = &hw };
	for (int r = 0; r < nranks; r++) {
		const struct st_rank_result *rr = &p->ranks[r];
		if (rr->release_ns < row.release_min_ns)
			row.release_min_ns = rr->release_ns;
		if (rr->release_ns > row.release_max_ns)
			row.release_max_ns = rr->release_ns;
		int wrong = rr->error.err != 0 || rr->bad_blocks != 0 ||
			    (rr->flags & ST_TF_SERVER_RESTART);
		any_err |= wrong;
		if (!first_msg[0] && wrong)
			st_rank_result_message(rr, first_msg, sizeof(first_msg));
		st_hist_merge(&h, &rr->hist);
		st_hist_merge(&hr, &rr->hist_read);
		st_hist_merge(&hw, &rr->hist_write);
		if (!row.cache_drop && rr->cache_drop[0]) {
			row.cache_drop = rr->cache_drop;
			row.cache_drop_note = rr->cache_drop_note;
		}
	}
	row.skew_ns = row.release_max_ns - row.release_min_ns;
	row.status = any_err ? "error" : "ok";
	row.message = first_msg[0] ? first_msg : NULL;
	own_values(cfg, (int)p->phase, &row);
	st_bind_phase(s->ins_phase, key, &row);
	return st_db_step(s->db, s->ins_phase, err, n);
}

/* Every rank's and thread's rows of a phase, ST_STORE_BATCH a statement
 * while there are that many left. */
static int store_results(struct st_store *s, const struct st_row_key *key, int nranks,
			 const struct st_phase_record *p, char *err, size_t n)
{
	for (int r = 0; r < nranks;) {
		int k = nranks - r >= ST_STORE_BATCH ? ST_STORE_BATCH : 1;
		sqlite3_stmt *q = k > 1 ? s->ins_ranks : s->ins_rank;
		for (int i = 0; i < k; i++)
			st_bind_rank(q, i * st_rows_rank.ncols, key, &p->ranks[r + i]);
		if (st_db_step(s->db, q, err, n))
			return -1;
		r += k;
	}
	for (int t = 0; t < p->nthreads;) {
		int k = p->nthreads - t >= ST_STORE_BATCH ? ST_STORE_BATCH : 1;
		sqlite3_stmt *q = k > 1 ? s->ins_threads : s->ins_thread;
		for (int i = 0; i < k; i++)
			st_bind_thread(q, i * st_rows_thread.ncols, key, &p->threads[t + i]);
		if (st_db_step(s->db, q, err, n))
			return -1;
		t += k;
	}
	return 0;
}

/* One rank's intervals v[0 .. m) as its row of interval_pack; v has room
 * for one more, where the rank's tail goes: when its phase went on after
 * its last call (fsync, COMMIT, close) for more than 1 % of its span, an
 * interval from that call's end to the rank's, without calls, so that the
 * series covers the phase the rank's figures span (a chart's rate within
 * 1 % of the figure's; a close of microseconds is no interval of its own). */
static int store_rank_intervals(struct st_store *s, const struct st_row_key *key,
				const struct st_rank_result *r, struct st_interval *v, size_t m,
				char *err, size_t n)
{
	const struct st_interval *x = &v[m - 1];
	if (r && (r->end_ns - x->end_ns) * 100 > r->end_ns - r->start_ns)
		v[m++] = (struct st_interval){ .t_ns = x->end_ns, .end_ns = r->end_ns,
					       .width_ns = x->width_ns, .rank = x->rank,
					       .idx = x->idx + 1 };
	struct st_ivpack p;
	if (st_ivpack_make(v, m, &p, err, n))
		return -1;
	st_bind_interval_pack(s->ins_interval, key, &p);
	int rc = st_db_step(s->db, s->ins_interval, err, n);
	st_ivpack_free(&p);
	return rc;
}

/* Every rank's intervals (each rank's in order of idx), one row a rank. */
static int store_intervals(struct st_store *s, const struct st_row_key *key, int nranks,
			   const struct st_phase_record *p, char *err, size_t n)
{
	struct st_interval *v = NULL;
	int rc = 0;
	for (size_t i = 0, first = 0; i < p->nintervals && !rc; i++) {
		if (i + 1 < p->nintervals && p->intervals[i + 1].rank == p->intervals[i].rank)
			continue;
		size_t m = i + 1 - first;
		if (m >= ST_IVP_MAX) {
			rc = st_db_fail(err, n, "store: rank %d has %zu intervals (at most %d)",
					p->intervals[i].rank, m, ST_IVP_MAX - 1);
			break;
		}
		if (!v && !(v = malloc(ST_IVP_MAX * sizeof(*v)))) {
			rc = st_db_fail(err, n, "store: out of memory");
			break;
		}
		memcpy(v, &p->intervals[first], m * sizeof(*v));
		const struct st_rank_result *r = NULL;
		for (int k = 0; k < nranks && !r; k++)
			if ((int32_t)p->ranks[k].rank == v[0].rank)
				r = &p->ranks[k];
		rc = store_rank_intervals(s, key, r, v, m, err, n);
		first = i + 1;
	}
	free(v);
	return rc;
}

static int store_phase(struct st_store *s, int64_t combo_id, int nranks,
		       const struct st_config *cfg, const struct st_phase_record *p, char *err,
		       size_t n)
{
	struct st_row_key key = { .combo_id = combo_id, .phase = st_phase_names[p->phase] };
	if (store_results(s, &key, nranks, p, err, n) ||
	    store_phase_row(s, &key, nranks, cfg, p, err, n))
		return -1;
	if (store_intervals(s, &key, nranks, p, err, n))
		return -1;
	for (size_t r = 0; r < p->nrpc; r++)
		if (store_rpc(s, &key, &p->rpc[r], err, n))
			return -1;
	for (size_t i = 0; i < p->nsamples; i++) {
		st_bind_sample(s->ins_sample, &key, &p->samples[i]);
		if (st_db_step(s->db, s->ins_sample, err, n))
			return -1;
	}
	return 0;
}

/* The time it was stored, its hash and the run's result hash. */
static int seal_combo(struct st_store *s, const char *run_id, int64_t combo_id, char *err, size_t n)
{
	/* rank 0's clock is the common timeline (its offset is 0) */
	sqlite3_bind_int64(s->set_stored, 1, st_now_ns());
	sqlite3_bind_int64(s->set_stored, 2, combo_id);
	if (st_db_step(s->db, s->set_stored, err, n))
		return -1;
	char cfg[ST_HASH_HEX], base[ST_HASH_HEX], res[ST_HASH_HEX], hex[ST_HASH_HEX];
	int found;
	if (st_hash_stored(s->h, run_id, cfg, base, res, &found, err, n))
		return -1;
	if (cfg[0] && (st_hash_combo(s->h, combo_id, hex, err, n) ||
		       st_hash_set(s->set_row_hash, NULL, combo_id, hex, err, n) ||
		       st_hash_refresh_result(s->h, s->set_result_hash, run_id, base, err, n)))
		return -1;
	return 0;
}

int st_store_combo(struct st_store *s, const struct st_combo_record *c, char *err, size_t n)
{
	if (st_db_begin(s->db, err, n))
		return -1;
	/* effective values: those of the first client rank that knows them */
	const struct st_effective *eff = NULL;
	for (int r = 0; c->prep && r < c->nranks && !eff; r++)
		if (!c->roles || c->roles[r] == ST_ROLE_CLIENT)
			eff = &c->prep[r].eff;
	int64_t combo_id;
	if (insert_combo(s, c, eff, &combo_id, err, n))
		goto rollback;
	for (int r = 0; c->prep && r < c->nranks; r++)
		if (store_effective(s, combo_id, r, c, err, n))
			goto rollback;
	if (store_skipped(s, combo_id, c, err, n) || store_failures(s, combo_id, c, err, n))
		goto rollback;
	for (int i = 0; i < c->nphases; i++)
		if (store_phase(s, combo_id, c->nranks, c->cfg, &c->phases[i], err, n))
			goto rollback;
	if (seal_combo(s, c->run_id, combo_id, err, n) || st_db_exec(s->db, "COMMIT", err, n))
		goto rollback;
	return 0;
rollback:
	st_db_rollback(s->db);
	return -1;
}
