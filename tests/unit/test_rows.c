/*
 * The rows the store writes. Every table of the schema is one kind of row
 * of store/rows.c, column for column and type for type, in a new store and
 * in one migrated from an older version; and a run with every kind of row,
 * each value
 * chosen to take every branch of how a column is bound (NULL or a value,
 * text or a number, a batch of 32 rows or one), and the rows it stored
 * pinned by their SHA-256 in the audit's own serialization (digest.h).
 * The pins were taken from the rows stcluster wrote before its column
 * tables (store/rows.c) existed: the same values, of the same types, the
 * same NULLs, so the hashes `audit` checks come out as they did. And a
 * value of any length is printed whole, in every format.
 */
#include "../../common/hist.h"
#include "../../common/options.h"
#include "../../common/util.h"
#include "../../common/wire.h"
#include "../../coordinator/store/digest.h"
#include "../../coordinator/store/hash.h"
#include "../../coordinator/store/output.h"
#include "../../coordinator/store/rows.h"
#include "../../coordinator/store/store.h"
#include "unit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PIN_RANKS = 35, PIN_THREADS = 36 }; /* one batch of 32 rows, then one by one */

/* What the pinned run is made of (calloc'd: the results are large). */
struct pin {
	struct st_config cfg;
	struct st_combo combo;
	struct st_host_info hosts[PIN_RANKS];
	int roles[PIN_RANKS], partners[PIN_RANKS];
	int64_t offs[PIN_RANKS], rtts[PIN_RANKS];
	struct st_rank_result rr[PIN_RANKS], rr_read[PIN_RANKS];
	struct st_thread_result tr[PIN_THREADS];
	struct st_sample samples[3];
	struct st_interval iv[3];
	struct st_rpc_result rpc[PIN_RANKS];
	struct st_prepare_status prep[PIN_RANKS];
};

static void pin_hist(struct st_hist *h, int n, uint64_t base)
{
	st_hist_init(h);
	for (int i = 0; i < n; i++)
		st_hist_add(h, base + 1000u * (uint64_t)i);
}

/* Five kinds of rank, by r % 5: a client that saw everything (an error,
 * blocks that did not verify, every flag, both directions of a mixed
 * phase, a cache drop); a client with no call timed and reads only; a
 * server; an idle rank; a client with errors counted but none kept. */
static void pin_rank(struct st_rank_result *x, int r, int phase)
{
	memset(x, 0, sizeof(*x));
	x->version = ST_WIRE_VERSION;
	x->rank = (uint32_t)r;
	x->phase = (uint32_t)phase;
	x->release_ns = 1000 * r - 7;
	x->cpu_user_us = 300 + r;
	x->cpu_sys_us = 20 + r;
	x->io_cpu_user_us = 200 + r; /* an idle rank's: NULL */
	x->io_cpu_sys_us = 10 + r;
	st_hist_init(&x->hist);
	st_hist_init(&x->hist_read);
	st_hist_init(&x->hist_write);
	switch (r % 5) {
	case 0:
		x->role = ST_ROLE_CLIENT;
		x->nthreads = 2;
		x->bytes = 1u << 20;
		x->ops = 3;
		x->start_ns = 100;
		x->end_ns = 2000000 + r;
		x->flags = ST_TF_DIRECT_FALLBACK | ST_TF_DEADLINE | ST_TF_STONEWALL;
		x->error = (struct st_error){ .err = 5, .op = ST_OP_WRITE, .offset = 4096, .count = 3 };
		snprintf(x->message, sizeof(x->message), "injected EIO");
		x->bad_blocks = 2;
		x->first_bad_offset = 8192;
		x->read_bytes = 1u << 19;
		x->read_ops = 1;
		pin_hist(&x->hist, 3, 50000);
		pin_hist(&x->hist_read, 1, 50000);
		pin_hist(&x->hist_write, 2, 51000);
		snprintf(x->cache_drop, sizeof(x->cache_drop), "remount");
		snprintf(x->cache_drop_note, sizeof(x->cache_drop_note), "a new superblock");
		break;
	case 1:
		x->role = ST_ROLE_CLIENT;
		x->nthreads = 1;
		x->bytes = 4096;
		x->start_ns = 200;
		x->end_ns = 300;
		x->read_bytes = 4096;
		pin_hist(&x->hist_read, 1, 70000); /* one direction only: no split */
		break;
	case 2:
		x->role = ST_ROLE_SERVER;
		x->start_ns = 50;
		x->end_ns = 3000000;
		break;
	case 3:
		x->role = ST_ROLE_IDLE;
		x->start_ns = 11; /* not stored: an idle rank ran nothing */
		x->end_ns = 12;
		break;
	default:
		x->role = ST_ROLE_CLIENT;
		x->nthreads = 1;
		x->bytes = 8192;
		x->ops = 2;
		x->start_ns = 400;
		x->end_ns = 900;
		x->error.count = 2;
		pin_hist(&x->hist, 2, 90000);
		snprintf(x->cache_drop, sizeof(x->cache_drop), "drop_caches");
		break;
	}
}

static void pin_thread(struct st_thread_result *t, int k)
{
	memset(t, 0, sizeof(*t));
	t->version = ST_WIRE_VERSION;
	t->rank = (uint32_t)(k % PIN_RANKS);
	t->thread = (uint32_t)(k / PIN_RANKS);
	t->bytes = 1000u + (unsigned)k;
	t->ops = (uint64_t)k % 4;
	t->start_ns = k;
	t->end_ns = 1000 + k;
	t->last_cpu = k % 3 == 1 ? -1 : k % 2;
	t->cpu_user_us = 70 + k;
	t->cpu_sys_us = k % 2 ? 0 : 9;
	st_hist_init(&t->hist);
	if (k % 3 != 1) {
		snprintf(t->cpuset, sizeof(t->cpuset), "0-%d", k % 4);
		pin_hist(&t->hist, 1 + k % 3, 60000);
	}
	if (k % 3 == 0) {
		t->error = (struct st_error){ .err = 28, .op = ST_OP_READ, .offset = 512u * (unsigned)k,
					      .count = 1 };
		snprintf(t->io_mode, sizeof(t->io_mode), "io_uring");
	}
	if (k % 3 == 2) {
		snprintf(t->io_mode, sizeof(t->io_mode), "sync (io_uring_setup: EPERM)");
		t->read_bytes = 100;
		t->read_ops = 1;
	}
}

/* What went over the wire: the kernel's counts (stable_how inferred), the
 * libnfs engine's (measured, with call times), a source out of range and
 * one with no basis for its WRITEs. */
static void pin_rpc(struct st_rpc_result *x, int r)
{
	memset(x, 0, sizeof(*x));
	x->version = ST_WIRE_VERSION;
	x->rank = (uint32_t)r;
	for (int h = 0; h < ST_RPC_HISTS; h++)
		st_hist_init(&x->hist[h]);
	static const char *const ops[] = { "WRITE", "COMMIT", "READ" };
	switch (r) {
	case 0: x->source = ST_RPC_MOUNTSTATS; x->basis = ST_RPC_BASIS_INFERRED; break;
	case 1: x->source = ST_RPC_LIBNFS; x->basis = ST_RPC_BASIS_MEASURED; break;
	case 3: x->source = 7; break;
	case 4: x->source = ST_RPC_MOUNTSTATS; x->basis = ST_RPC_BASIS_NONE; break;
	default: return;
	}
	x->nops = 3;
	x->xprts = (uint32_t)r + 1;
	x->connects = 1;
	x->sends = 12 + (uint64_t)r;
	x->recvs = 12;
	x->bad_xids = (uint64_t)r;
	x->backlog_u = 3;
	if (r == 0)
		snprintf(x->note, sizeof(x->note), "counters reset during the phase");
	for (int i = 0; i < 3; i++) {
		struct st_rpc_op *o = &x->op[i];
		snprintf(o->name, sizeof(o->name), "%s", ops[i]);
		o->ops = 10u + (unsigned)i;
		o->trans = 11u + (unsigned)i;
		o->timeouts = (uint64_t)i;
		o->bytes_sent = 2200u * (unsigned)(i + 1);
		o->bytes_recv = 1100;
		o->queue_us = 5;
		o->rtt_us = 700;
		o->exe_us = 800;
		o->errors = i == 2;
		o->file_sync = 7;
		o->data_sync = 2;
		o->unstable = 1;
	}
	if (r == 1)
		pin_hist(&x->hist[1], 4, 70000); /* WRITE's times; READ's stay empty */
}

static void pin_host(struct st_host_info *h, int r)
{
	memset(h, 0, sizeof(*h));
	h->version = ST_WIRE_VERSION;
	h->rank = (uint32_t)r;
	h->local_rank = r % 2;
	h->local_size = 2;
	h->cores = 2;
	h->pus = 4;
	h->numa_nodes = 1;
	h->pid = 100 + r;
	h->mem_bytes = (int64_t)1 << 30;
	snprintf(h->hostname, sizeof(h->hostname), "h%d", r / 2);
	snprintf(h->kernel, sizeof(h->kernel), "6.1.0 #1 SMP");
	h->rmem_max = h->wmem_max = -1;
	h->sunrpc_slots = h->speed_mbps = -1;
	if (r % 2 == 0) {
		snprintf(h->addresses, sizeof(h->addresses), "10.0.0.%d", r);
		snprintf(h->cpu_model, sizeof(h->cpu_model), "a CPU");
		h->rmem_max = 212992;
		snprintf(h->tcp_rmem, sizeof(h->tcp_rmem), "4096 131072 6291456");
		h->sunrpc_slots = 0;
		h->mtu = 1500;
		h->speed_mbps = 10000;
		snprintf(h->iface, sizeof(h->iface), "eth0");
	}
}

static void pin_init(struct pin *p)
{
	char err[ST_ERR_MAX];
	st_config_defaults(&p->cfg);
	CHECK(st_config_set(&p->cfg, ST_OPT_TARGET, "/tmp", 1, NULL, err, sizeof(err)) == 0);
	CHECK(st_config_set(&p->cfg, ST_OPT_LABEL, "pinned", 1, NULL, err, sizeof(err)) == 0);
	/* as the job does when --engine is not given: the registry's first */
	CHECK(st_config_set(&p->cfg, ST_OPT_ENGINE, "posix", 0, NULL, err, sizeof(err)) == 0);
	CHECK(st_config_set(&p->cfg, ST_OPT_RSIZE, "64k", 1, NULL, err, sizeof(err)) == 0);
	CHECK(st_config_set(&p->cfg, ST_OPT_SYNC, "async", 1, NULL, err, sizeof(err)) == 0);
	CHECK(st_config_set(&p->cfg, ST_OPT_MOUNT_OPTS, "lookupcache=none", 1, NULL, err,
			    sizeof(err)) == 0);
	st_plan_combo(&p->cfg, 0, &p->combo);
	p->combo.seq = 0;
	for (int r = 0; r < PIN_RANKS; r++) {
		pin_host(&p->hosts[r], r);
		pin_rank(&p->rr[r], r, ST_PHASE_WRITE);
		pin_rank(&p->rr_read[r], (r + 1) % PIN_RANKS, ST_PHASE_READ);
		p->rr_read[r].rank = (uint32_t)r;
		p->roles[r] = (int)p->rr[r].role;
		p->partners[r] = (r + 1) % PIN_RANKS;
		p->offs[r] = 10 * r - 50;
		p->rtts[r] = 100 + r;
		pin_rpc(&p->rpc[r], r);
		struct st_prepare_status *s = &p->prep[r];
		s->version = ST_WIRE_VERSION;
		if (r % 2 == 0) {
			st_effective_set(&s->eff, ST_OPT_RSIZE, 32768);
			s->eff.max[ST_OPT_RSIZE] = r ? 1 << 20 : 0;
			snprintf(s->eff.options, sizeof(s->eff.options), "rw,rsize=32768,r%d", r);
			snprintf(s->eff.note, sizeof(s->eff.note),
				 "rsize: 65536 asked, 32768 granted; lock: nolock added");
		}
		if (r == 4)
			snprintf(s->eff.added, sizeof(s->eff.added), "nolock");
		if (r == 3 || r == 8) {
			s->err = r == 3 ? 13 : 1;
			s->op = r == 3 ? ST_OP_MKDIR : 99; /* out of range: named as op 0 */
			snprintf(s->message, sizeof(s->message), "denied on rank %d", r);
		}
	}
	for (int k = 0; k < PIN_THREADS; k++)
		pin_thread(&p->tr[k], k);
	static const char *const devs[] = { "", "eth0", "sda" };
	for (int k = 0; k < 3; k++) {
		struct st_sample *x = &p->samples[k];
		x->t_ns = 100000000 * (k + 1);
		x->rank = 2;
		snprintf(x->metric, sizeof(x->metric), k ? "net_rx_mbps" : "cpu_user_pct");
		snprintf(x->device, sizeof(x->device), "%s", devs[k]);
		x->value = 12.5 * (k + 1) + 0.1;
		p->iv[k] = (struct st_interval){ .t_ns = 100 * k, .end_ns = 100 * k + 100,
						 .width_ns = 100, .rank = k, .idx = (uint32_t)k,
						 .bytes = 4096u * (unsigned)(k + 1), .ops = (unsigned)k + 1,
						 .read_bytes = (unsigned)k, .read_ops = (unsigned)k };
	}
}

/* Store the pinned run: begin, three baselines, one combination of two
 * phases and a skipped one, end. 0 or -1 (said on stderr). */
static int pin_store(struct st_store *s, struct pin *p)
{
	char err[ST_ERR_MAX];
	struct st_run_record run = { .run_id = "run-pin", .cfg = &p->cfg, .command = "stcluster --pin",
				     .started_wall_ns = 1700000000123456789LL, .nranks = PIN_RANKS,
				     .nhosts = PIN_RANKS / 2 + 1, .combos_planned = 1,
				     .hosts = p->hosts, .roles = p->roles, .clock_offset_ns = p->offs,
				     .clock_rtt_ns = p->rtts, .partners = p->partners };
	struct st_phase_record ph[2] = {
		{ .phase = ST_PHASE_WRITE, .ranks = p->rr, .threads = p->tr, .nthreads = PIN_THREADS,
		  .gathered_ns = 5000000, .samples = p->samples, .nsamples = 3, .intervals = p->iv,
		  .nintervals = 3, .rpc = p->rpc, .nrpc = PIN_RANKS },
		{ .phase = ST_PHASE_READ, .ranks = p->rr_read, .gathered_ns = 9000000 },
	};
	struct st_combo_record rec = { .run_id = "run-pin", .cfg = &p->cfg, .combo = &p->combo,
				       .status = ST_COMBO_ERROR, .message = "a phase saw errors",
				       .started_wall_ns = 1700000001000000000LL,
				       .finished_wall_ns = 1700000002500000000LL,
				       .direct_fallback = 1, .nranks = PIN_RANKS, .prep = p->prep,
				       .phases = ph, .nphases = 2,
				       .skipped_phases = 1u << ST_PHASE_RANDREAD,
				       .skip_message = "the engine cannot", .roles = p->roles };
	if (st_store_begin_run(s, &run, err, sizeof(err)) ||
	    st_store_baseline(s, "run-pin", "net_all", "c2s", 2, "0,1", 1000000, 0.5, NULL, 4, err,
			      sizeof(err)) ||
	    st_store_baseline(s, "run-pin", "disk", "write", 2, NULL, 0, 0, "O_DIRECT refused", 0,
			      err, sizeof(err)) ||
	    st_store_baseline(s, "run-pin", "net_one", "s2c", 2, "1", 0, 0.25, "", -1, err,
			      sizeof(err)) ||
	    st_store_combo(s, &rec, err, sizeof(err)) ||
	    st_store_end_run(s, "run-pin", ST_RUN_COMPLETE, "rank 1 (host h0): d/r1.t0: ETIMEDOUT",
			     err, sizeof(err))) {
		fprintf(stderr, "    pinned run: %s\n", err);
		return -1;
	}
	return 0;
}

/* SHA-256 of every row of sql, each as digest.h serializes a row (the
 * result columns named as the statement names them). "" on error. */
static void rows_digest(sqlite3 *db, const char *sql, char hex[ST_HASH_HEX])
{
	sqlite3_stmt *st;
	struct st_digest *d = st_digest_new();
	hex[0] = '\0';
	if (!d || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "    %s: %s\n", sql, sqlite3_errmsg(db));
		st_digest_free(d);
		return;
	}
	int ncol = sqlite3_column_count(st), rc;
	const char *names[64];
	for (int i = 0; i < ncol && i < 64; i++)
		names[i] = sqlite3_column_name(st, i);
	st_digest_start(d, "pin");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		st_digest_row(d, st, names, ncol < 64 ? ncol : 64);
	if (rc != SQLITE_DONE || st_digest_finish(d, hex))
		hex[0] = '\0';
	sqlite3_finalize(st);
	st_digest_free(d);
}

/* Each kind of row the pinned run wrote, by table (every column but what
 * changes from run to run: combo.stored_ns, the run's finish time, plan and
 * version; and of combo's option columns a few of each type, as the
 * options table may grow), and its SHA-256. */
static const struct {
	const char *what, *sql, *hex;
} pins[] = {
	{ "run", "SELECT run_id, started_at, status, label, command, engine, target, phases, "
		 "iterations, nranks, nhosts, combos_planned, abort_rank, abort_reason, cleanup "
		 "FROM run",
	  "fefc933f0addf78833df0ab92bdf05858ba3e76550c0d6892e7dbeea73d35bbb" },
	{ "host", "SELECT * FROM host ORDER BY rank", "406ed314c98f4de4b1deac24c18369cb94a9105dd2ff4a64ba6d2288a6c76464" },
	{ "baseline", "SELECT * FROM baseline ORDER BY rowid", "507f2d76656e5db8ca0884fc56537fc679ed69755cdfbaf13e2ec4f014432376" },
	{ "combo", "SELECT combo_id, run_id, seq, matrix_index, iteration, status, message, "
		   "started_at, finished_at, direct_fallback, mount_options, block, size, threads, "
		   "direct, data, rsize, rsize_eff, sync, sync_eff, \"mount-opts\" FROM combo",
	  "c2b1ab6fff23d1fc3d3d19db2d572b80f0b8e5189fc13ffeee00ea578d497811" },
	{ "effective_option", "SELECT * FROM effective_option ORDER BY combo_id, rank, option", "e1025c51c65e860529d8f630b88228d7c70cf84d2ced5846924b4e8f9c0ae086" },
	{ "combo_failure", "SELECT * FROM combo_failure ORDER BY combo_id, rank", "264eceb593b04b009dcdb77d803254ca6e3f76c3c5606217627c7689ebf41e5c" },
	{ "phase_run", "SELECT * FROM phase_run ORDER BY combo_id, phase", "6ed627aadd42e13b2320bef334f0ff826785e4852d918d8a76d9a231c2a8eb18" },
	{ "rank_result", "SELECT * FROM rank_result ORDER BY combo_id, phase, rank", "726d8fd0a7987a0447609f6174942a1228291ba828d429064ab47d65636abbfa" },
	{ "thread_result", "SELECT * FROM thread_result ORDER BY combo_id, phase, rank, thread", "5ee3c509ac039299499ae520130babe40c574cb8574be00878bf765023d63e34" },
	{ "sample", "SELECT * FROM sample ORDER BY rowid", "ba4418a9e1d39b44e74cea3a656c7c060d6a6ebde630e447737f0273a494c1c4" },
	{ "interval", "SELECT * FROM interval ORDER BY combo_id, phase, rank, idx", "868a640062ccab37247ae164193badd34463c78618ac3cc817d1dcce78ada6e7" }, /* with each rank's tail (issue 20) */
	{ "rpc_stat", "SELECT * FROM rpc_stat ORDER BY combo_id, phase, rank, source, op", "9fb5951a3165efba901e9d30522c34cc920d80589f0c0e5451ef6cdb42bd80d6" },
};

/* run.config_hash and run.baseline_hash of the pinned run (plan and
 * version set to 'a plan' and 'pinned') */
#define PIN_CONFIG_HASH "1f0ca1e18beeb1aad24d1aa0b5b741aa66e50a0f9329fdbba4aa6eb26e7dc093"
#define PIN_BASELINE_HASH "0dba976f7f9bf82d681ff81df82f5b8dcd61ffee07a9ee435c0fb00951147919"

static void rows_are_pinned(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/pin.db", unit_tmpdir());
	struct pin *p = calloc(1, sizeof(*p));
	CHECK(p != NULL);
	if (!p)
		return;
	pin_init(p);
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s || pin_store(s, p)) {
		CHECK(0);
		st_store_close(s);
		free(p);
		return;
	}
	sqlite3 *db = st_store_db(s);
	/* the configuration and baseline hashes as hash.c makes them, with
	 * what changes from build to build made the same */
	CHECK(sqlite3_exec(db, "UPDATE run SET plan = 'a plan', stcluster_version = 'pinned'", NULL,
			   NULL, NULL) == SQLITE_OK);
	struct st_hasher *h = st_hasher_new(db, err, sizeof(err));
	char cfg[ST_HASH_HEX] = "", base[ST_HASH_HEX] = "";
	int64_t hosts = 0, baselines = 0;
	CHECK(h && st_hash_config(h, "run-pin", cfg, &hosts, err, sizeof(err)) == 0 &&
	      st_hash_baselines(h, "run-pin", base, &baselines, err, sizeof(err)) == 0);
	st_hasher_free(h);
	CHECK_EQ_INT(hosts, PIN_RANKS);
	CHECK_EQ_INT(baselines, 3);
	if (strcmp(cfg, PIN_CONFIG_HASH) || strcmp(base, PIN_BASELINE_HASH)) {
		fprintf(stderr, "    config hash %s, pinned %s\n    baseline hash %s, pinned %s\n", cfg,
			PIN_CONFIG_HASH, base, PIN_BASELINE_HASH);
		CHECK(0);
	}
	for (size_t i = 0; i < ST_ARRAY_LEN(pins); i++) {
		char hex[ST_HASH_HEX];
		rows_digest(db, pins[i].sql, hex);
		if (strcmp(hex, pins[i].hex) != 0) {
			fprintf(stderr, "    %s: rows give %s, pinned %s\n", pins[i].what, hex,
				pins[i].hex);
			CHECK(0);
		}
	}
	st_store_close(s);
	free(p);
}

/* ---- the column tables are the schema ---- */

static int in_words(const char *words, const char *w)
{
	size_t l = strlen(w);
	for (const char *p = words; p && *p;) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == l && strncmp(p, w, l) == 0)
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}

/* A combo column that comes from the options table: a sweep option, or an
 * NFS option's effective value. */
static int option_column(const char *name)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		char eff[80];
		snprintf(eff, sizeof(eff), "%s_eff", st_options[i].name);
		if ((st_options[i].flags & ST_OF_SWEEP) &&
		    (strcmp(name, st_options[i].name) == 0 ||
		     ((st_options[i].flags & ST_OF_NFS) && strcmp(name, eff) == 0)))
			return 1;
	}
	return 0;
}

static const struct st_column *kind_column(const struct st_row_kind *k, const char *name)
{
	for (int i = 0; i < k->ncols; i++)
		if (strcmp(k->cols[i].name, name) == 0)
			return &k->cols[i];
	return NULL;
}

/* One mismatch: said on say (NULL: not said); 1. */
static int mismatch(FILE *say, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int mismatch(FILE *say, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (say) {
		fputs("    ", say);
		vfprintf(say, fmt, ap);
		fputc('\n', say);
	}
	va_end(ap);
	return 1;
}

/* The kinds of rows.c against the tables of db, the mismatches counted: a
 * kind bound against its own types, a column of a kind that its table
 * lacks or declares with another type, a column of a table that no kind
 * writes (nor lists as set later), a table without a kind. */
static int kinds_vs_tables(sqlite3 *db, FILE *say)
{
	int bad = 0, kinds = 0;
	char err[ST_ERR_MAX];
	for (const struct st_row_kind *const *k = st_row_kinds; *k; k++, kinds++) {
		const char *t = (*k)->table;
		if (st_row_kind_check(*k, err, sizeof(err)))
			bad += mismatch(say, "%s", err);
		sqlite3_stmt *st;
		CHECK(sqlite3_prepare_v2(db, "SELECT name, type FROM pragma_table_info(?1)", -1, &st,
					 NULL) == SQLITE_OK);
		sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
		int have = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 0);
			const char *type = (const char *)sqlite3_column_text(st, 1);
			const struct st_column *c = kind_column(*k, name);
			have += c != NULL;
			if (c && strcmp(c->decl, type) != 0)
				bad += mismatch(say, "%s.%s: the table declares %s, its kind %s", t,
						name, type, c->decl);
			if (!c && !in_words((*k)->later, name) &&
			    !(*k == &st_rows_combo && option_column(name)))
				bad += mismatch(say, "%s.%s: no row of its kind writes it", t, name);
		}
		sqlite3_finalize(st);
		if (have != (*k)->ncols)
			bad += mismatch(say, "%s: %d columns of its kind, %d of them in the table", t,
					(*k)->ncols, have);
	}
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db,
				 "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
				 "'sqlite_%' ORDER BY name",
				 -1, &st, NULL) == SQLITE_OK);
	int tables = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int found = 0;
		/* the schema fills it itself: 0 .. 1023 for the view interval */
		if (strcmp(name, "interval_seq") == 0)
			continue;
		for (const struct st_row_kind *const *k = st_row_kinds; *k; k++)
			found += strcmp((*k)->table, name) == 0;
		if (found != 1)
			bad += mismatch(say, "table %s: %d kinds of row", name, found);
		tables++;
	}
	sqlite3_finalize(st);
	if (tables != kinds)
		bad += mismatch(say, "%d tables, %d kinds of row", tables, kinds);
	return bad;
}

/* Every kind of row is its table in a new store; a column added to a
 * table (or a kind bound against its declared type) is seen. */
static void kinds_are_the_schema(void)
{
	char path[512], err[ST_ERR_MAX];
	snprintf(path, sizeof(path), "%s/kinds.db", unit_tmpdir());
	struct st_store *s = st_store_open(path, 0, err, sizeof(err));
	CHECK(s != NULL);
	if (!s)
		return;
	sqlite3 *db = st_store_db(s);
	CHECK_EQ_INT(kinds_vs_tables(db, stderr), 0);
	/* the test can fail: a column no kind writes, a table no kind is */
	CHECK(sqlite3_exec(db, "ALTER TABLE rank_result ADD COLUMN new_figure INTEGER; "
			       "CREATE TABLE stray (a INTEGER)",
			   NULL, NULL, NULL) == SQLITE_OK);
	CHECK_EQ_INT(kinds_vs_tables(db, NULL), 3); /* the column, the table, the count */
	st_store_close(s);
	/* and a column bound as another type than it declares */
	static const struct st_column wrong[] = {
		{ "bytes", "TEXT", ST_FIELD(struct st_rank_result, bytes) },
	};
	static const struct st_column no_names[] = {
		{ "role", "TEXT", ST_FIELD(struct st_rank_result, role), .as = ST_AS_NAME },
	};
	static const struct st_column hist_text[] = {
		{ "hist", "TEXT", ST_FIELD(struct st_rank_result, hist), .as = ST_AS_SPARSE },
	};
	const struct st_row_kind bad[] = {
		{ "rank_result", "INSERT", wrong, 1, NULL },
		{ "rank_result", "INSERT", no_names, 1, NULL },
		{ "rank_result", "INSERT", hist_text, 1, NULL },
	};
	for (size_t i = 0; i < ST_ARRAY_LEN(bad); i++)
		CHECK(st_row_kind_check(&bad[i], err, sizeof(err)) == -1 && strstr(err, "declared"));
}

/* "name type" of every column of every table, and every index, of db,
 * sorted: one line each, to free. */
static char *schema_text(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *text = NULL;
	if (sqlite3_prepare_v2(db,
			       "SELECT group_concat(line, char(10)) FROM (SELECT t.name || '.' || c.name "
			       "|| ' ' || c.type AS line FROM sqlite_schema t, pragma_table_info(t.name) c "
			       "WHERE t.type = 'table' UNION SELECT 'index ' || name FROM sqlite_schema "
			       "WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY line)",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		text = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return text;
}

/* Each line of a that b lacks, on stderr. */
static void print_missing(const char *a, const char *b, const char *who)
{
	for (const char *p = a; *p;) {
		size_t len = strcspn(p, "\n");
		int found = 0;
		for (const char *q = b; *q && !found;) {
			size_t l = strcspn(q, "\n");
			found = l == len && strncmp(p, q, len) == 0;
			q += l + (q[l] != '\0');
		}
		if (!found)
			fprintf(stderr, "    %s %.*s, the other not\n", who, (int)len, p);
		p += len + (p[len] != '\0');
	}
}

/* A store of schema version 7 (tests/fixtures/schema-v7.sql), migrated,
 * has the tables, columns, types and indexes of a new store. */
static void migrated_store_is_a_new_one(void)
{
	char dir[512], fresh[600], old[600], err[ST_ERR_MAX];
	snprintf(dir, sizeof(dir), "%s", unit_tmpdir());
	snprintf(fresh, sizeof(fresh), "%s/new.db", dir);
	snprintf(old, sizeof(old), "%s/v7.db", dir);
	char *v7 = unit_slurp("tests/fixtures/schema-v7.sql");
	CHECK(v7 != NULL);
	if (!v7)
		return;
	CHECK(strstr(v7, "(schema version 7,") != NULL);
	sqlite3 *db;
	CHECK(sqlite3_open(old, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, v7, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 7", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	free(v7);
	struct st_store *a = st_store_open(fresh, 0, err, sizeof(err));
	struct st_store *b = st_store_open(old, 0, err, sizeof(err));
	CHECK(a && b);
	if (a && b) {
		char *want = schema_text(st_store_db(a)), *got = schema_text(st_store_db(b));
		CHECK(want && got && strlen(want) > 1000);
		if (want && got && strcmp(want, got) != 0) {
			print_missing(want, got, "a new store has");
			print_missing(got, want, "the version-7 store, migrated, has");
			CHECK(0);
		}
		free(want);
		free(got);
	}
	st_store_close(a);
	st_store_close(b);
}

/* ---- printed whole ---- */

/* A value of 10,009 bytes (a '|', a comma and a quote in its first six) in
 * every format: whole, each as its format escapes it (st_print_rows cut
 * every value at 4,095 bytes once). */
static void long_values_printed_whole(void)
{
	enum { LONG = 10000 };
	char *value = malloc(LONG + 16), *run = malloc(LONG + 4);
	CHECK(value && run);
	if (!value || !run) {
		free(value);
		free(run);
		return;
	}
	memset(run, 'x', LONG);
	strcpy(run + LONG, "END");
	snprintf(value, LONG + 16, "a|b,\"c%s", run);
	sqlite3 *db;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	/* the escaped beginning of the value in each format */
	static const char *const head[ST_FMT_COUNT] = {
		[ST_FMT_TABLE] = "a|b,\"c", [ST_FMT_CSV] = "\"a|b,\"\"c",
		[ST_FMT_JSON] = "\"a|b,\\\"c", [ST_FMT_MARKDOWN] = "| a\\|b,\"c",
	};
	for (int f = 0; f < ST_FMT_COUNT; f++) {
		sqlite3_stmt *st;
		CHECK(sqlite3_prepare_v2(db, "SELECT 7 AS n, ?1 AS v", -1, &st, NULL) == SQLITE_OK);
		sqlite3_bind_text(st, 1, value, -1, SQLITE_STATIC);
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		CHECK(out && st_print_rows(st, f, NULL, out) == 0);
		if (out)
			fclose(out);
		sqlite3_finalize(st);
		/* the value in one piece: its escaped head, then every byte of the run */
		char *at = text ? strstr(text, head[f]) : NULL;
		int whole = at && strncmp(at + strlen(head[f]), run, LONG + 3) == 0;
		if (!whole)
			fprintf(stderr, "    %s: the value is not whole (%zu bytes printed)\n",
				st_format_names[f], len);
		CHECK(whole);
		CHECK(len > LONG);
		free(text);
	}
	sqlite3_close(db);
	free(value);
	free(run);
}

const struct unit_test unit_rows[] = {
	{ "rows: every table is one kind of row of store/rows.c, column for column", kinds_are_the_schema },
	{ "rows: a schema 7 store, migrated, has every table, column and index of a new one",
	  migrated_store_is_a_new_one },
	{ "rows: every kind of row, every way a column is bound, as pinned", rows_are_pinned },
	{ "rows: a value of 10,009 bytes printed whole in table, csv, json and markdown",
	  long_values_printed_whole },
	{ NULL, NULL },
};
