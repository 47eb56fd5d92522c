/*
 * job.c - the MPI job and its one phase script.
 *
 * All ranks parse; rank 0 validates (before anything is created) and
 * broadcasts a status, so every rank takes the same exit path. Then, per
 * combination: broadcast it, prepare on every rank, agree that preparation
 * worked; per phase: barrier, timed I/O, gather fixed-width results to
 * rank 0, which stores the combination in one transaction. Only rank 0
 * prints and touches the store.
 */
#include "job.h"

#include "../../common/options.h"
#include "../../common/permute.h"
#include "../../common/units.h"
#include "../../common/util.h"
#include "../../common/wire.h"
#include "../../worker/engine.h"
#include "../../worker/hostinfo.h"
#include "../../worker/mount.h"
#include "../../worker/sampler.h"
#include "../../worker/worker.h"
#include "../store/store.h"
#include "baselines.h"
#include "clocksync.h"
#include "die.h"
#include "roles.h"
#include "watch.h"

#include <errno.h>
#include <hwloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#define PLAN_MAX (1 << 20)

enum { PROGRESS_NONE, PROGRESS_PLAIN, PROGRESS_LIVE };
#define PROGRESS_TAG 77
#define STEP_TAG 78
#define STEP_RING 64
#define DEFAULT_CONF "./stcluster.conf"

/* What a rank knows about the job; one per rank, on its stack. */
struct job {
	int rank, size;
	struct st_config cfg;
	const struct st_engine *engine;
	char run_id[40];
	char run_dir[64];
	hwloc_topology_t topo;
	struct st_host_info *hosts; /* all ranks (allgathered) */
	int *roles;		    /* per rank, enum st_role */
	int *partners;		    /* per rank: whose files it reads with reorder */
	int64_t *offsets, *rtts;    /* rank 0: per rank */
	int64_t my_offset;	    /* this rank's clock - rank 0's */
	struct st_sampler *sampler; /* server ranks: /proc sampling during phases */
	int nservers;		    /* ranks with the server role */
	MPI_Comm host_comm;	    /* the ranks of this host (MPI_COMM_NULL before) */
	uint64_t run_seed;	    /* from the run id: the --verify pattern */
	struct st_store *store;	    /* rank 0 */
	unsigned phases;	    /* mask of phases to run */
	int quiet;
	int progress;		    /* PROGRESS_* (the same on every rank) */
	MPI_Comm progress_comm;	    /* live progress messages, apart from the rest */
	int64_t run_start_ns;	    /* rank 0: when the sweep began */
	uint64_t combos_done;	    /* rank 0: combinations finished so far */
	int combos_failed, store_failed;
	struct st_watch *watch;	    /* rank 0: deaths and signals; others: the lifeline */
	MPI_Comm step_comm;	    /* "I have reached step N" messages to rank 0 */
	int step;		    /* collective steps so far (the same on every rank) */
	int *last_step;		    /* rank 0: per rank, the last step it reached */
	int step_buf[STEP_RING];    /* others: send buffers of those messages */
	st_run_report_fn *report;   /* rank 0: prints the run's report at its end */
};

static void usage_short(FILE *out)
{
	fprintf(out,
		"stcluster: no options and no ./stcluster.conf\n"
		"usage: mpirun -hostfile nodes stcluster --target DIR [options]   (see --help)\n"
		"example:\n"
		"  mpirun -np 4 stcluster --target /mnt/nfs/bench --block 4k,1m --threads 1,2 \\\n"
		"         --size 1g --phases write,read --label 'nfs1 after upgrade'\n"
		"  stcluster report\n");
}

/* Rank 0: read a plan file into *text (caller frees). */
static int read_plan(const char *path, char **text, char *err, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, n, "--plan: cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	char *buf = malloc(PLAN_MAX + 1);
	size_t got = buf ? fread(buf, 1, PLAN_MAX + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	if (!buf || bad || got > PLAN_MAX) {
		snprintf(err, n, "--plan: '%s' is %s", path,
			 !buf ? "too large for memory" : bad ? "unreadable" : "larger than 1 MiB");
		free(buf);
		return -1;
	}
	buf[got] = '\0';
	if (strlen(buf) != got) {
		snprintf(err, n, "--plan: '%s' is not a text file", path);
		free(buf);
		return -1;
	}
	*text = buf;
	return 0;
}

/* The value of option `name` ("--plan") in argv, or NULL. */
static const char *find_arg(int argc, char **argv, const char *name)
{
	size_t l = strlen(name);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], name) == 0 && i + 1 < argc)
			return argv[i + 1];
		if (strncmp(argv[i], name, l) == 0 && argv[i][l] == '=')
			return argv[i] + l + 1;
	}
	return NULL;
}

/* Rank 0's checks that look at the file system; creates nothing. */
static int validate_places(const struct job *j, char *err, size_t n)
{
	const struct st_config *c = &j->cfg;
	if (c->o[ST_OPT_DRY_RUN].n)
		return 0;
	if (j->engine->caps & ST_EC_NEEDS_TARGET_DIR) {
		const char *t = c->o[ST_OPT_TARGET].s;
		struct stat st;
		char real[4096];
		if (stat(t, &st)) {
			snprintf(err, n, "--target: '%s' does not exist", t);
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			snprintf(err, n, "--target: '%s' is not a directory", t);
			return -1;
		}
		if (realpath(t, real) && strcmp(real, "/") == 0) {
			snprintf(err, n, "--target: '%s' is the root directory; give a directory to test in",
				 t);
			return -1;
		}
		if (access(t, W_OK | X_OK)) {
			snprintf(err, n, "--target: '%s' is not writable", t);
			return -1;
		}
	}
	if (c->o[ST_OPT_MOUNT].n) {
		if (geteuid() != 0) {
			snprintf(err, n, "--mount: mounting needs root (run without --mount to record "
					 "the options in force)");
			return -1;
		}
		uint64_t combos = st_plan_combos(c);
		for (uint64_t i = 0; i < combos; i++) {
			struct st_combo k;
			char opts[ST_STR_MAX];
			st_plan_combo(c, i, &k);
			if (st_mount_options(c, &k, opts, sizeof(opts)) < 0) {
				snprintf(err, n, "--mount: %s", opts);
				return -1;
			}
		}
	}
	if (j->engine->validate) {
		int64_t d = c->o[ST_OPT_DEADLINE].v[0];
		if (d > 10000000000LL)
			d = 10000000000LL; /* a server that does not answer: tell within 10 s */
		if (j->engine->validate(c, st_now_ns() + d, err, n))
			return -1;
	}
	return st_store_check_path(c->o[ST_OPT_DB].s, 1, err, n);
}

/* Rank 0: is the user's terminal where our output goes? Under mpirun our
 * stdout is always a pty of mpirun's, so look at mpirun's own stdout (our
 * parent on this host); run alone, at ours. */
static int user_sees_terminal(void)
{
	if (!getenv("OMPI_COMM_WORLD_SIZE"))
		return isatty(STDOUT_FILENO);
	char path[64], target[256];
	snprintf(path, sizeof(path), "/proc/%d/fd/1", (int)getppid());
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	return strncmp(target, "/dev/pts/", 9) == 0 || strncmp(target, "/dev/tty", 8) == 0;
}

/* Parse and validate on every rank; 0 to go on, else the exit status. */
static int setup_config(struct job *j, int argc, char **argv)
{
	char err[ST_ERR_MAX] = "";
	char *plan = NULL;
	const char *plan_name = find_arg(argc, argv, "--plan");
	int64_t len = 0;
	int status = 0; /* 0 ok, 2 bad input, 3 usage */
	const char *resume = find_arg(argc, argv, "--resume");
	char resume_name[128];
	if (j->rank == 0 && resume) {
		/* the run's own options, as stored, are the plan */
		const char *db = find_arg(argc, argv, "--db");
		if (st_store_resume_plan(db ? db : st_options[ST_OPT_DB].def, resume, j->run_id,
					 sizeof(j->run_id), &plan, err, sizeof(err)))
			status = 2;
		plan_name = resume_name;
		snprintf(resume_name, sizeof(resume_name), "run %s", j->run_id);
	}
	if (j->rank == 0 && !resume) {
		if (!plan_name && argc == 1) {
			if (access(DEFAULT_CONF, F_OK) == 0)
				plan_name = DEFAULT_CONF;
			else
				status = 3;
		}
		if (!status && plan_name && read_plan(plan_name, &plan, err, sizeof(err)))
			status = 2;
	}
	if (j->rank == 0)
		len = plan ? (int64_t)strlen(plan) : 0;
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (status) {
		if (j->rank == 0) {
			if (status == 3)
				usage_short(stderr);
			else
				fprintf(stderr, "stcluster: %s\n", err);
		}
		return 2;
	}
	MPI_Bcast(&len, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
	if (resume) {
		MPI_Bcast(j->run_id, sizeof(j->run_id), MPI_CHAR, 0, MPI_COMM_WORLD);
		snprintf(resume_name, sizeof(resume_name), "run %s", j->run_id);
		plan_name = resume_name;
	}
	if (j->rank != 0)
		plan = malloc((size_t)len + 1);
	if (!plan && len)
		st_die("out of memory for the plan");
	if (len)
		MPI_Bcast(plan, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (plan)
		plan[len] = '\0';

	/* every rank parses; the command line is read first so it wins */
	st_config_defaults(&j->cfg);
	int rc = st_config_parse_args(&j->cfg, argc, argv, err, sizeof(err));
	if (!rc && plan_name)
		rc = st_config_parse_plan(&j->cfg, plan ? plan : "", plan_name, err, sizeof(err));
	free(plan);
	if (!rc)
		rc = st_config_check(&j->cfg, err, sizeof(err));
	if (!rc) {
		const char *missing;
		j->engine = st_engine_find(st_options[ST_OPT_ENGINE].choices[j->cfg.o[ST_OPT_ENGINE].v[0]]);
		if (!j->engine) {
			snprintf(err, sizeof(err), "--engine: '%s' is not built into this stcluster",
				 st_options[ST_OPT_ENGINE].choices[j->cfg.o[ST_OPT_ENGINE].v[0]]);
			rc = -1;
		} else if (st_engine_check(j->engine, &missing)) {
			st_die("engine %s lacks %s", j->engine->name, missing);
		}
	}
	if (j->rank == 0 && !rc)
		rc = validate_places(j, err, sizeof(err));
	status = rc ? 2 : 0;
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (status) {
		if (j->rank == 0)
			fprintf(stderr, "stcluster: %s\n", err);
		return status;
	}
	/* rank 0's configuration is the run's, byte for byte */
	MPI_Bcast(&j->cfg, (int)sizeof(j->cfg), MPI_BYTE, 0, MPI_COMM_WORLD);
	j->phases = st_config_phases(&j->cfg);
	j->quiet = j->cfg.o[ST_OPT_QUIET].n > 0;
	int64_t pm = j->cfg.o[ST_OPT_PROGRESS].v[0];
	j->progress = j->quiet || pm == 3 ? PROGRESS_NONE : pm == 1 ? PROGRESS_LIVE : PROGRESS_PLAIN;
	if (!j->quiet && pm == 0 && j->rank == 0 && user_sees_terminal())
		j->progress = PROGRESS_LIVE;
	MPI_Bcast(&j->progress, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return 0;
}

static void dry_run(const struct job *j)
{
	uint64_t n = st_plan_combos(&j->cfg);
	int64_t it = j->cfg.o[ST_OPT_ITERATIONS].v[0];
	printf("%llu combinations", (unsigned long long)n);
	if (it > 1)
		printf(" x %lld iterations = %llu runs", (long long)it,
		       (unsigned long long)(n * (uint64_t)it));
	printf(", phases:");
	for (int p = 0; p < ST_PHASE_COUNT; p++)
		if (j->phases & (1u << p))
			printf(" %s", st_phase_names[p]);
	printf("\n");
	for (uint64_t i = 0; i < n; i++) {
		struct st_combo c;
		char text[1024];
		st_plan_combo(&j->cfg, i, &c);
		st_combo_text(&j->cfg, &c, text, sizeof(text));
		printf("%4llu  %s\n", (unsigned long long)i + 1, text);
	}
}

/* Whose files rank r reads with reorder=on: the next client on another
 * host; else the next client; else its own. */
static int read_partner(const struct job *j, int r)
{
	int p = r;
	for (int k = 1; k < j->size; k++) {
		int q = (r + k) % j->size;
		if (j->roles[q] != ST_ROLE_CLIENT)
			continue;
		if (strcmp(j->hosts[q].hostname, j->hosts[r].hostname) != 0)
			return q;
		if (p == r)
			p = q;
	}
	return p;
}

/* Host facts of every rank, on every rank; roles; the reorder partners.
 * Returns the number of client ranks. */
static int describe_hosts(struct job *j)
{
	struct st_host_info me = { 0 };
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j->rank, MPI_INFO_NULL,
			    &j->host_comm);
	MPI_Comm_rank(j->host_comm, &me.local_rank);
	MPI_Comm_size(j->host_comm, &me.local_size);
	char server[256];
	st_target_server(&j->cfg, server, sizeof(server));
	if (!server[0] && j->cfg.o[ST_OPT_SERVERS].n)
		st_copy(server, sizeof(server), st_optval_str(&j->cfg.o[ST_OPT_SERVERS], 0));
	st_hostinfo_collect(j->topo, server, &me);
	me.rank = (uint32_t)j->rank;
	j->hosts = calloc((size_t)j->size, sizeof(*j->hosts));
	j->roles = calloc((size_t)j->size, sizeof(*j->roles));
	if (!j->hosts || !j->roles)
		st_die("out of memory");
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, j->hosts, (int)sizeof(me), MPI_BYTE,
		      MPI_COMM_WORLD);
	for (int r = 0; r < j->size; r++) {
		if (j->hosts[r].version != ST_WIRE_VERSION)
			st_die("rank %d runs another stcluster (wire version %u, mine %d)", r,
			       j->hosts[r].version, ST_WIRE_VERSION);
	}
	int clients = st_assign_roles(&j->cfg, j->hosts, j->size, j->roles);
	j->partners = calloc((size_t)j->size, sizeof(int));
	if (!j->partners)
		st_die("out of memory");
	for (int r = 0; r < j->size; r++)
		j->partners[r] = read_partner(j, r);
	return clients;
}

static int count_hosts(const struct job *j)
{
	int n = 0;
	for (int r = 0; r < j->size; r++) {
		int seen = 0;
		for (int q = 0; q < r && !seen; q++)
			seen = strcmp(j->hosts[q].hostname, j->hosts[r].hostname) == 0;
		n += !seen;
	}
	return n;
}

static char *join_argv(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* The phases of combination c that cannot run, and why (the same answer on
 * every rank: a function of the combination only). */
static unsigned skip_phases(const struct job *j, const struct st_combo *c, char *buf, size_t n)
{
	int64_t block = c->v[ST_OPT_BLOCK], size = c->v[ST_OPT_SIZE];
	buf[0] = '\0';
	if (size % block) {
		char b[32], s[32];
		st_format_size(block, b, sizeof(b));
		st_format_size(size, s, sizeof(s));
		snprintf(buf, n, "size=%s is not a multiple of block=%s", s, b);
		return j->phases;
	}
	if (!j->engine->unsupported)
		return 0;
	return j->engine->unsupported(&j->cfg, c, buf, n) & j->phases;
}

static void format_secs(double s, char *buf, size_t n)
{
	if (s < 0)
		snprintf(buf, n, "?");
	else if (s < 120)
		snprintf(buf, n, "%.0fs", s);
	else if (s < 7200)
		snprintf(buf, n, "%.0fm%02.0fs", s / 60 - 0.5, s - 60 * (double)(int)(s / 60));
	else
		snprintf(buf, n, "%.1fh", s / 3600);
}

/*
 * Deadlines. A rank that dies ends the job through mpirun, and rank 0's
 * watch names it (watch.h); a rank that hangs does not, so rank 0 waits for
 * each collective step only so long: the phase deadline (after which no
 * rank issues I/O) plus a grace for the calls in flight. Before each step
 * the other ranks tell rank 0 they have reached it, so rank 0 can name the
 * ones that never did.
 */
static int64_t step_deadline(const struct job *j, int64_t from)
{
	int64_t dl = j->cfg.o[ST_OPT_DEADLINE].v[0];
	return from + dl + 5000000000LL + dl / 10;
}

/* Rank 0: read every "reached step" message that has come in. */
static void drain_steps(struct job *j)
{
	int flag = 1;
	while (flag) {
		MPI_Status stt;
		MPI_Iprobe(MPI_ANY_SOURCE, STEP_TAG, j->step_comm, &flag, &stt);
		if (!flag)
			break;
		int step;
		MPI_Recv(&step, 1, MPI_INT, stt.MPI_SOURCE, STEP_TAG, j->step_comm,
			 MPI_STATUS_IGNORE);
		j->last_step[stt.MPI_SOURCE] = step;
	}
}

/* Rank 0: the ranks in missing[] are hung: record the run as aborted,
 * naming them, and end the job (mpirun then ends every rank, exit 3). */
static _Noreturn void abort_hung(struct job *j, const int *missing, const char *what,
				 int64_t since)
{
	char place[128], who[512] = "", reason[1024];
	int first = -1, count = 0;
	for (int r = 0; r < j->size; r++) {
		if (!missing[r])
			continue;
		if (first < 0)
			first = r;
		size_t l = strlen(who);
		if (count++ < 4)
			snprintf(who + l, sizeof(who) - l, "%srank %d (host %s)", l ? ", " : "", r,
				 j->hosts[r].hostname);
	}
	if (count > 4) {
		size_t l = strlen(who);
		snprintf(who + l, sizeof(who) - l, " and %d more", count - 4);
	}
	st_watch_place(j->watch, place, sizeof(place));
	snprintf(reason, sizeof(reason), "%s did not reach %s within %.1f s (%s; hung?)", who, what,
		 (double)(st_now_ns() - since) / 1e9, place);
	st_watch_abort(j->watch, first, reason);
	MPI_Abort(MPI_COMM_WORLD, 3);
	_exit(3);
}

/* Every rank, at the same point: one more collective step. The others tell
 * rank 0 they have reached it (no wait: the message is small). */
static void step_reached(struct job *j)
{
	j->step++;
	if (j->rank == 0)
		return;
	int *b = &j->step_buf[j->step % STEP_RING];
	MPI_Request q;
	*b = j->step;
	MPI_Isend(b, 1, MPI_INT, 0, STEP_TAG, j->step_comm, &q);
	MPI_Request_free(&q);
}

/* Rank 0: abort when the step is past its deadline, naming who never reached it. */
static void step_check(struct job *j, int64_t deadline, int64_t since, const char *what)
{
	if (j->rank || st_now_ns() <= deadline)
		return;
	drain_steps(j);
	int *missing = calloc((size_t)j->size, sizeof(int));
	if (!missing)
		st_die("out of memory");
	for (int r = 1; r < j->size; r++)
		missing[r] = j->last_step[r] < j->step;
	abort_hung(j, missing, what, since);
}

/* Complete a collective request of this step, begun at since: the other
 * ranks wait as long as it takes (rank 0 decides), rank 0 until the deadline. */
static void await(struct job *j, MPI_Request *q, int64_t since, const char *what)
{
	int64_t deadline = step_deadline(j, since);
	step_reached(j);
	if (j->rank) {
		MPI_Wait(q, MPI_STATUS_IGNORE);
		return;
	}
	long pause = 5000; /* ns, doubling to 200 us: quick steps stay quick */
	for (;;) {
		int done = 0;
		MPI_Test(q, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		step_check(j, deadline, since, what);
		struct timespec ts = { 0, pause };
		nanosleep(&ts, NULL);
		if (pause < 200000)
			pause *= 2;
	}
	drain_steps(j);
}

/* Live progress during a phase. Every rank reports the bytes its threads
 * have moved every 250 ms and once more when done; rank 0 sums them into
 * one updating line. The I/O threads only keep a counter they update anyway. */
static void live_phase(struct job *j, struct st_worker *w, const struct st_combo *c, int phase,
		       uint64_t total, int64_t release)
{
	struct prog {
		uint64_t bytes;
		int32_t done;
		int32_t pad;
	} me = { 0, 0, 0 };
	if (j->rank != 0) {
		while (!me.done) {
			me.done = st_worker_phase_wait(w, st_now_ns() + 250000000);
			me.bytes = st_worker_live_bytes(w);
			MPI_Send(&me, (int)sizeof(me), MPI_BYTE, 0, PROGRESS_TAG, j->progress_comm);
		}
		return;
	}
	uint64_t *bytes = calloc((size_t)j->size, sizeof(uint64_t));
	int *done = calloc((size_t)j->size, sizeof(int)), ndone = 0;
	if (!bytes || !done)
		st_die("out of memory");
	int64_t next_print = st_now_ns(), end_by = step_deadline(j, release);
	while (ndone < j->size) {
		if (st_now_ns() > end_by) {
			char what[64];
			for (int r = 0; r < j->size; r++)
				done[r] = !done[r];
			snprintf(what, sizeof(what), "the end of phase %s", st_phase_names[phase]);
			abort_hung(j, done, what, release);
		}
		if (!done[0] && st_worker_phase_wait(w, st_now_ns() + 50000000)) {
			done[0] = 1;
			ndone++;
		} else if (done[0]) {
			struct timespec ts = { 0, 20000000 };
			nanosleep(&ts, NULL);
		}
		bytes[0] = st_worker_live_bytes(w);
		int flag = 1;
		while (flag) {
			MPI_Status stt;
			MPI_Iprobe(MPI_ANY_SOURCE, PROGRESS_TAG, j->progress_comm, &flag, &stt);
			if (!flag)
				break;
			struct prog p;
			MPI_Recv(&p, (int)sizeof(p), MPI_BYTE, stt.MPI_SOURCE, PROGRESS_TAG,
				 j->progress_comm, MPI_STATUS_IGNORE);
			bytes[stt.MPI_SOURCE] = p.bytes;
			if (p.done && !done[stt.MPI_SOURCE]) {
				done[stt.MPI_SOURCE] = 1;
				ndone++;
			}
		}
		int64_t now = st_now_ns();
		if (now >= next_print) {
			uint64_t sum = 0;
			for (int r = 0; r < j->size; r++)
				sum += bytes[r];
			double el = (double)(now - release) / 1e9, run = (double)(now - j->run_start_ns) / 1e9;
			/* the run so far, per finished combination, times what is left */
			double eta = j->combos_done ? run / (double)j->combos_done *
							      (double)(total - j->combos_done)
						    : -1;
			char e1[32], e2[32];
			format_secs(el, e1, sizeof(e1));
			format_secs(eta, e2, sizeof(e2));
			printf("\r\033[K[%u/%llu] %-9s %6s  %10.1f MB/s  ETA %s", c->seq + 1,
			       (unsigned long long)total, st_phase_names[phase], e1,
			       el > 0 ? (double)sum / el / 1e6 : 0.0, e2);
			fflush(stdout);
			next_print = now + 250000000;
		}
	}
	printf("\r\033[K");
	fflush(stdout);
	free(bytes);
	free(done);
}

/* Rank 0: a line per finished combination (live) or phase (plain). */
static void progress_line(const struct job *j, const struct st_combo *c, uint64_t total,
			  const struct st_phase_record *ph, int nph, const char *status)
{
	if (j->progress == PROGRESS_NONE)
		return;
	char text[1024];
	st_combo_text(&j->cfg, c, text, sizeof(text));
	printf("[%u/%llu] %s", c->seq + 1, (unsigned long long)total, text);
	if (c->iteration || j->cfg.o[ST_OPT_ITERATIONS].v[0] > 1)
		printf(" iter=%u", c->iteration + 1);
	printf(" :");
	for (int i = 0; i < nph; i++) {
		uint64_t bytes = 0;
		int64_t s = INT64_MAX, e = INT64_MIN;
		for (int r = 0; r < j->size; r++) {
			const struct st_rank_result *rr = &ph[i].ranks[r];
			if (rr->role != ST_ROLE_CLIENT || !rr->nthreads)
				continue;
			bytes += rr->bytes;
			if (rr->start_ns < s)
				s = rr->start_ns;
			if (rr->end_ns > e)
				e = rr->end_ns;
		}
		printf(" %s %.1f MB/s", st_phase_names[ph[i].phase],
		       e > s ? (double)bytes * 1e3 / (double)(e - s) : 0.0);
	}
	if (strcmp(status, "ok"))
		printf(" [%s]", status);
	printf("\n");
	fflush(stdout);
}

/* Server rank: sample at --sample-hz until the phase-end barrier completes. */
static const struct st_sample *sample_until(struct job *j, MPI_Request *done, int64_t since,
					    const char *what, size_t *n)
{
	int64_t deadline = step_deadline(j, since);
	int64_t period = 1000000000LL / j->cfg.o[ST_OPT_SAMPLE_HZ].v[0];
	int finished = 0;
	/* a tick now primes the counters: the gap since the last phase is not data */
	st_sampler_tick(j->sampler, j->my_offset);
	st_sampler_reset(j->sampler);
	int64_t next = st_now_ns() + period;
	while (!finished) {
		MPI_Test(done, &finished, MPI_STATUS_IGNORE);
		if (!finished)
			step_check(j, deadline, since, what);
		int64_t now = st_now_ns();
		if (now >= next) {
			st_sampler_tick(j->sampler, j->my_offset);
			next += period;
			if (next < now)
				next = now + period;
		}
		if (!finished) {
			int64_t wait = next - st_now_ns();
			/* poll the barrier often enough that the phase end is seen within 1 ms */
			struct timespec ts = { 0, wait > 1000000 ? 1000000 : (wait > 0 ? wait : 0) };
			nanosleep(&ts, NULL);
		}
	}
	st_sampler_tick(j->sampler, j->my_offset); /* the last partial interval */
	struct st_sample *pts = (struct st_sample *)st_sampler_points(j->sampler, n);
	for (size_t i = 0; i < *n; i++)
		pts[i].rank = j->rank;
	return pts;
}

/* Everyone's samples to rank 0 (which frees the array it gets). */
static struct st_sample *gather_samples(struct job *j, const struct st_sample *mine, size_t n,
					size_t *total)
{
	int bytes = (int)(n * sizeof(*mine)), *counts = NULL, *displs = NULL;
	struct st_sample *all = NULL;
	*total = 0;
	if (j->rank == 0) {
		counts = calloc((size_t)j->size, sizeof(int));
		displs = calloc((size_t)j->size, sizeof(int));
		if (!counts || !displs)
			st_die("out of memory");
	}
	MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (j->rank == 0) {
		int sum = 0;
		for (int r = 0; r < j->size; r++) {
			displs[r] = sum;
			sum += counts[r];
		}
		*total = (size_t)sum / sizeof(*mine);
		all = malloc(sum ? (size_t)sum : 1);
		if (!all)
			st_die("out of memory");
	}
	MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(counts);
	free(displs);
	return all;
}

/* --mount: local rank 0 of each client host mounts the target with this
 * combination's options, once every rank of the host is done with the
 * previous combination (an open directory would make the umount busy).
 * 0, or -1 with ps filled as a failed preparation. */
static int mount_step(struct job *j, const struct st_combo *c, struct st_prepare_status *ps)
{
	struct {
		int32_t rc;
		char msg[240];
	} res = { 0 };
	memset(ps, 0, sizeof(*ps));
	ps->version = ST_WIRE_VERSION;
	if (!j->cfg.o[ST_OPT_MOUNT].n || j->roles[j->rank] != ST_ROLE_CLIENT)
		return 0;
	MPI_Barrier(j->host_comm);
	if (j->hosts[j->rank].local_rank == 0) {
		char opts[ST_STR_MAX], msg[200] = "";
		if (st_mount_options(&j->cfg, c, opts, sizeof(opts)) < 0) {
			res.rc = -EINVAL;
			snprintf(res.msg, sizeof(res.msg), "mount options: %s", opts);
		} else {
			res.rc = st_mount_apply(j->cfg.o[ST_OPT_MOUNT].s, j->cfg.o[ST_OPT_FSTYPE].s, opts,
						j->cfg.o[ST_OPT_TARGET].s, 0, msg, sizeof(msg));
			if (res.rc)
				snprintf(res.msg, sizeof(res.msg), "mount -t %s -o %s %s %s: %s",
					 j->cfg.o[ST_OPT_FSTYPE].s, opts, j->cfg.o[ST_OPT_MOUNT].s,
					 j->cfg.o[ST_OPT_TARGET].s, msg);
		}
	}
	MPI_Bcast(&res, (int)sizeof(res), MPI_BYTE, 0, j->host_comm);
	if (!res.rc)
		return 0;
	ps->err = -res.rc;
	ps->op = ST_OP_PREPARE;
	st_copy(ps->message, sizeof(ps->message), res.msg);
	return -1;
}

/* --mount, before a read phase that follows a write: each client host drops
 * its cache for the files (remount, or drop_caches); the method is returned. */
static void drop_cache_step(struct job *j, const struct st_combo *c, char *method, size_t n)
{
	struct {
		char method[24];
		char msg[200];
	} res = { "", "" };
	if (j->roles[j->rank] == ST_ROLE_CLIENT) {
		MPI_Barrier(j->host_comm);
		if (j->hosts[j->rank].local_rank == 0) {
			char opts[ST_STR_MAX];
			st_mount_options(&j->cfg, c, opts, sizeof(opts));
			if (st_drop_caches(j->cfg.o[ST_OPT_TARGET].s, j->cfg.o[ST_OPT_MOUNT].s,
					   j->cfg.o[ST_OPT_FSTYPE].s, opts, res.method, sizeof(res.method),
					   res.msg, sizeof(res.msg)) < 0)
				snprintf(res.method, sizeof(res.method), "failed");
		}
		MPI_Bcast(&res, (int)sizeof(res), MPI_BYTE, 0, j->host_comm);
	}
	st_copy(method, n, res.method);
}

/* The one phase script for one combination. */
static void run_combo(struct job *j, struct st_combo *c, uint64_t total)
{
	int64_t started = st_wall_ns();
	char why[256];
	unsigned skipped = skip_phases(j, c, why, sizeof(why));
	const char *skip = skipped == j->phases ? why : NULL;
	if (skip) {
		if (j->rank == 0) {
			struct st_combo_record rec = { .run_id = j->run_id, .combo = c, .cfg = &j->cfg,
						       .status = "skipped", .message = skip,
						       .started_wall_ns = started,
						       .finished_wall_ns = st_wall_ns(),
						       .nranks = j->size };
			char err[ST_ERR_MAX];
			if (st_store_combo(j->store, &rec, err, sizeof(err))) {
				fprintf(stderr, "stcluster: %s\n", err);
				j->store_failed = 1;
			}
			if (!j->quiet)
				printf("[%u/%llu] skipped: %s\n", c->seq + 1, (unsigned long long)total,
				       skip);
		}
		return;
	}

	struct st_worker_args wa = {
		.engine = j->engine, .cfg = &j->cfg, .combo = c, .topo = j->topo,
		.rank = j->rank, .nranks = j->size,
		.local_rank = j->hosts[j->rank].local_rank, .role = j->roles[j->rank],
		.partner = j->partners[j->rank], .clock_offset_ns = j->my_offset, .run_dir = j->run_dir,
		.phases = j->phases & ~skipped, .run_seed = j->run_seed,
	};
	struct st_prepare_status ps, *all_ps = NULL;
	struct st_worker *w = NULL;
	int64_t prep_start = st_now_ns();
	st_watch_where(j->watch, (int)c->seq, -1);
	if (mount_step(j, c, &ps) == 0) {
		w = st_worker_prepare(&wa, &ps);
		if (!w)
			st_die("out of memory preparing a combination");
	}
	if (j->rank == 0)
		all_ps = calloc((size_t)j->size, sizeof(*all_ps));
	MPI_Request q;
	MPI_Igather(&ps, (int)sizeof(ps), MPI_BYTE, all_ps, (int)sizeof(ps), MPI_BYTE, 0,
		    MPI_COMM_WORLD, &q);
	await(j, &q, prep_start, "the end of preparing");
	int failed = ps.err != 0, any_failed = 0;
	MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

	struct st_phase_record ph[ST_PHASE_COUNT];
	int nph = 0, nt = st_worker_threads(w);
	struct st_thread_result *mine = calloc((size_t)(nt ? nt : 1), sizeof(*mine));
	int *counts = NULL, *displs = NULL;
	if (!mine)
		st_die("out of memory");
	if (j->rank == 0) {
		counts = calloc((size_t)j->size, sizeof(int));
		displs = calloc((size_t)j->size, sizeof(int));
		if (!counts || !displs || !all_ps)
			st_die("out of memory");
	}
	int direct_fallback = (ps.flags & ST_TF_DIRECT_FALLBACK) != 0;
	int wrote = 0; /* a write phase ran since the last cache drop */
	for (int p = 0; !any_failed && p < ST_PHASE_COUNT; p++) {
		if (!(wa.phases & (1u << p)))
			continue;
		struct st_rank_result rr, *all_rr = NULL;
		struct st_thread_result *all_tr = NULL;
		size_t total_samples = 0;
		char cache_drop[24] = "";
		if (j->cfg.o[ST_OPT_MOUNT].n && wrote && (p == ST_PHASE_READ || p == ST_PHASE_RANDREAD)) {
			drop_cache_step(j, c, cache_drop, sizeof(cache_drop));
			wrote = 0;
		}
		char what[64];
		snprintf(what, sizeof(what), "the start of phase %s", st_phase_names[p]);
		MPI_Ibarrier(MPI_COMM_WORLD, &q);
		await(j, &q, st_now_ns(), what);
		st_watch_where(j->watch, (int)c->seq, p);
		int64_t release = st_now_ns();
		st_worker_phase_begin(w, p, release);
		if (j->progress == PROGRESS_LIVE)
			live_phase(j, w, c, p, total, release);
		else
			st_worker_phase_wait(w, INT64_MAX);
		st_worker_phase_end(w, &rr, mine);
		st_copy(rr.cache_drop, sizeof(rr.cache_drop), cache_drop);
		wrote |= p == ST_PHASE_WRITE || p == ST_PHASE_REWRITE || p == ST_PHASE_RANDWRITE;
		/* the phase ends when every client is done; servers sample until then */
		MPI_Request done;
		MPI_Ibarrier(MPI_COMM_WORLD, &done);
		snprintf(what, sizeof(what), "the end of phase %s", st_phase_names[p]);
		size_t nsamples = 0;
		const struct st_sample *samples = NULL;
		if (j->sampler && j->roles[j->rank] == ST_ROLE_SERVER) {
			/* the server rank's own facts: its sampling window and its CPU */
			int64_t u0, s0, u1, s1, t0 = st_now_ns();
			st_cpu_us(&u0, &s0);
			step_reached(j);
			samples = sample_until(j, &done, release, what, &nsamples);
			if (j->rank == 0)
				drain_steps(j);
			st_cpu_us(&u1, &s1);
			rr.start_ns = t0 - j->my_offset;
			rr.end_ns = st_now_ns() - j->my_offset;
			rr.cpu_user_us = u1 - u0;
			rr.cpu_sys_us = s1 - s0;
		} else {
			await(j, &done, release, what);
		}
		if (j->rank == 0)
			all_rr = calloc((size_t)j->size, sizeof(*all_rr));
		MPI_Gather(&rr, (int)sizeof(rr), MPI_BYTE, all_rr, (int)sizeof(rr), MPI_BYTE, 0,
			   MPI_COMM_WORLD);
		int bytes = nt * (int)sizeof(*mine), total_threads = 0;
		MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (j->rank == 0) {
			for (int r = 0; r < j->size; r++) {
				displs[r] = total_threads * (int)sizeof(*mine);
				total_threads += counts[r] / (int)sizeof(*mine);
				if (all_rr[r].version != ST_WIRE_VERSION)
					st_die("rank %d sent a result of wire version %u", r,
					       all_rr[r].version);
				direct_fallback |= (all_rr[r].flags & ST_TF_DIRECT_FALLBACK) != 0;
			}
			all_tr = calloc((size_t)(total_threads ? total_threads : 1), sizeof(*all_tr));
			if (!all_rr || !all_tr)
				st_die("out of memory");
		}
		MPI_Gatherv(mine, bytes, MPI_BYTE, all_tr, counts, displs, MPI_BYTE, 0,
			    MPI_COMM_WORLD);
		/* every rank knows the roles: with no server rank there is nothing to gather */
		struct st_sample *all_s = j->nservers ? gather_samples(j, samples, nsamples,
									&total_samples)
						      : NULL;
		if (j->rank == 0)
			ph[nph++] = (struct st_phase_record){ .phase = p, .ranks = all_rr,
							      .threads = all_tr,
							      .nthreads = total_threads,
							      .gathered_ns = st_now_ns(),
							      .samples = all_s,
							      .nsamples = total_samples };
		if (j->rank == 0 && j->progress == PROGRESS_PLAIN)
			progress_line(j, c, total, &ph[nph - 1], 1, "ok");
	}
	/* partners may still read this rank's files until everyone is here */
	MPI_Ibarrier(MPI_COMM_WORLD, &q);
	await(j, &q, st_now_ns(), "the end of the combination");
	st_worker_finish(w);
	st_watch_where(j->watch, -1, -1);

	if (j->rank == 0) {
		const char *status = "ok";
		char msg[512] = "";
		if (any_failed) {
			status = "failed";
			for (int r = 0; r < j->size; r++)
				if (all_ps[r].err) {
					snprintf(msg, sizeof(msg), "rank %d (%s): %s", r,
						 j->hosts[r].hostname, all_ps[r].message);
					break;
				}
			j->combos_failed++;
		} else {
			for (int i = 0; i < nph && !msg[0]; i++)
				for (int r = 0; r < j->size; r++)
					if (ph[i].ranks[r].error.err || ph[i].ranks[r].bad_blocks) {
						status = "error";
						snprintf(msg, sizeof(msg), "%s: rank %d (%s): %s",
							 st_phase_names[ph[i].phase], r,
							 j->hosts[r].hostname, ph[i].ranks[r].message);
						break;
					}
		}
		struct st_combo_record rec = {
			.run_id = j->run_id, .combo = c, .cfg = &j->cfg, .status = status,
			.message = msg[0] ? msg : NULL, .started_wall_ns = started,
			.finished_wall_ns = st_wall_ns(), .direct_fallback = direct_fallback,
			.nranks = j->size, .prep = all_ps, .phases = ph, .nphases = nph,
			.skipped_phases = any_failed ? 0 : skipped, .skip_message = why,
			.roles = j->roles,
		};
		char err[ST_ERR_MAX];
		if (st_store_combo(j->store, &rec, err, sizeof(err))) {
			fprintf(stderr, "stcluster: %s\n", err);
			j->store_failed = 1;
		}
		j->combos_done++;
		if (j->progress == PROGRESS_LIVE || nph == 0 || strcmp(status, "ok"))
			progress_line(j, c, total, ph, nph, status);
		if (skipped && !any_failed && !j->quiet)
			printf("    skipped phases: %s\n", why);
		if (msg[0] && !j->quiet)
			printf("    %s\n", msg);
		for (int i = 0; i < nph; i++) {
			free((void *)ph[i].ranks);
			free((void *)ph[i].threads);
			free((void *)ph[i].samples);
		}
	}
	free(all_ps);
	free(counts);
	free(displs);
	free(mine);
}

static int run_job(struct job *j, int argc, char **argv)
{
	char err[ST_ERR_MAX] = "";
	int resuming = j->cfg.o[ST_OPT_RESUME].n > 0;
	if (j->rank == 0 && !resuming) {
		uuid_t u;
		uuid_generate(u);
		uuid_unparse_lower(u, j->run_id);
	}
	MPI_Bcast(j->run_id, sizeof(j->run_id), MPI_CHAR, 0, MPI_COMM_WORLD);
	snprintf(j->run_dir, sizeof(j->run_dir), "stcluster-%s", j->run_id);
	for (const char *p = j->run_id; *p; p++)
		j->run_seed = st_mix64(j->run_seed ^ (uint64_t)(unsigned char)*p);

	if (hwloc_topology_init(&j->topo) || hwloc_topology_load(j->topo))
		st_die("hwloc cannot load the topology");
	int clients = describe_hosts(j);
	/* a server named but in no rank's host: a typo, or missing from the hostfile */
	const struct st_optval *sv = &j->cfg.o[ST_OPT_SERVERS];
	for (int i = 0; i < sv->n; i++) {
		const char *name = st_optval_str(sv, i);
		int found = 0;
		for (int r = 0; r < j->size && !found; r++)
			found = st_host_matches(&j->hosts[r], name);
		if (!found) {
			if (j->rank == 0)
				fprintf(stderr,
					"stcluster: --servers: no rank of this job runs on '%s' (is it in "
					"the hostfile?)\n",
					name);
			return 2;
		}
	}
	if (clients == 0) {
		if (j->rank == 0)
			fprintf(stderr, "stcluster: --servers: every rank is on a server host; no client "
					"ranks are left to do I/O\n");
		return 2;
	}
	for (int r = 0; r < j->size; r++)
		j->nservers += j->roles[r] == ST_ROLE_SERVER;
	if (j->roles[j->rank] == ST_ROLE_SERVER) {
		j->sampler = st_sampler_new(200000);
		if (!j->sampler)
			st_die("out of memory");
	}
	j->offsets = calloc((size_t)j->size, sizeof(int64_t));
	j->rtts = calloc((size_t)j->size, sizeof(int64_t));
	if (!j->offsets || !j->rtts)
		st_die("out of memory");
	j->my_offset = st_clock_sync(MPI_COMM_WORLD, 20, j->offsets, j->rtts);

	uint64_t total = st_plan_combos(&j->cfg) * (uint64_t)j->cfg.o[ST_OPT_ITERATIONS].v[0];
	int status = 0;
	unsigned char *stored = NULL; /* rank 0, resuming: seq already stored */
	if (j->rank == 0) {
		char *cmd = join_argv(argc, argv);
		j->store = st_store_open(j->cfg.o[ST_OPT_DB].s, 0, err, sizeof(err));
		struct st_run_record rec = {
			.run_id = j->run_id, .cfg = &j->cfg, .command = cmd,
			.started_wall_ns = st_wall_ns(), .nranks = j->size, .nhosts = count_hosts(j),
			.combos_planned = total, .hosts = j->hosts, .roles = j->roles,
			.clock_offset_ns = j->offsets, .clock_rtt_ns = j->rtts,
			.partners = j->partners,
		};
		rec.resume = resuming;
		if (!j->store || st_store_begin_run(j->store, &rec, err, sizeof(err)))
			status = 1;
		else if (resuming && st_store_stored_seqs(j->store, j->run_id, total, &stored, err,
							  sizeof(err)))
			status = 1;
		free(cmd);
		if (status)
			fprintf(stderr, "stcluster: %s\n", err);
		else if (!j->quiet)
			printf("stcluster %s %s: %llu combinations on %d ranks, %d hosts; store %s\n",
			       resuming ? "resuming run" : "run", j->run_id, (unsigned long long)total,
			       j->size, rec.nhosts, j->cfg.o[ST_OPT_DB].s);
		fflush(stdout);
	}
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (status) {
		free(stored);
		return 1;
	}
	j->watch = st_watch_start(MPI_COMM_WORLD, j->hosts, j->cfg.o[ST_OPT_DB].s, j->run_id, total);
	if (j->rank == 0) {
		j->last_step = calloc((size_t)j->size, sizeof(int));
		if (!j->last_step)
			st_die("out of memory");
	}

	struct st_baseline_ctx bc = { .cfg = &j->cfg, .hosts = j->hosts, .roles = j->roles,
				      .rank = j->rank, .size = j->size, .my_offset = j->my_offset,
				      .run_id = j->run_id, .store = j->store, .quiet = j->quiet };
	st_run_baselines(&bc);

	/* the order: matrix order, each combination's iterations in a row; or
	 * shuffled by --shuffle SEED (the same order again when resuming) */
	int64_t iterations = j->cfg.o[ST_OPT_ITERATIONS].v[0];
	j->run_start_ns = st_now_ns();
	struct st_permute order;
	int shuffled = j->cfg.o[ST_OPT_SHUFFLE].n > 0;
	if (shuffled)
		st_permute_init(&order, total, (uint64_t)j->cfg.o[ST_OPT_SHUFFLE].v[0]);
	for (uint64_t seq = 0; seq < total; seq++) {
		struct st_combo c;
		int skip = 0;
		uint64_t item = shuffled ? st_permute_next(&order) : seq;
		if (j->rank == 0) {
			st_plan_combo(&j->cfg, item / (uint64_t)iterations, &c);
			c.seq = (uint32_t)seq;
			c.iteration = (uint32_t)(item % (uint64_t)iterations);
			skip = stored && stored[seq];
		}
		MPI_Bcast(&skip, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (skip)
			continue;
		MPI_Bcast(&c, (int)sizeof(c), MPI_BYTE, 0, MPI_COMM_WORLD);
		run_combo(j, &c, total);
		MPI_Bcast(&j->store_failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (j->store_failed)
			break;
	}

	MPI_Request q;
	MPI_Ibarrier(MPI_COMM_WORLD, &q);
	await(j, &q, st_now_ns(), "the end of the sweep");
	struct st_combo none;
	st_plan_combo(&j->cfg, 0, &none);
	struct st_worker_args wa = { .engine = j->engine, .cfg = &j->cfg, .combo = &none,
				     .rank = j->rank, .nranks = j->size, .run_dir = j->run_dir };
	if (j->roles[j->rank] == ST_ROLE_CLIENT)
		st_worker_remove_run_dir(&wa);

	int rc = 0;
	if (j->rank == 0) {
		const char *run_status = j->store_failed ? "failed" : "complete";
		if (st_store_end_run(j->store, j->run_id, run_status, err, sizeof(err))) {
			fprintf(stderr, "stcluster: %s\n", err);
			j->store_failed = 1;
		}
		if (!j->quiet && !j->store_failed) {
			printf("\n");
			if (j->report)
				j->report(j->store, j->run_id, stdout);
			printf("\nstored as run %s in %s (stcluster report / runs / query)\n", j->run_id,
			       j->cfg.o[ST_OPT_DB].s);
		}
		if (j->combos_failed && !j->quiet)
			printf("%d of %llu combinations failed to prepare\n", j->combos_failed,
			       (unsigned long long)total);
		rc = j->store_failed ? 1 : 0;
	}
	/* from here on the ranks may end: rank 0 stops watching first */
	if (j->rank == 0)
		st_watch_stop(j->watch);
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (j->rank)
		st_watch_stop(j->watch);
	j->watch = NULL;
	free(stored);
	return rc;
}

int st_cmd_run(int argc, char **argv, st_run_report_fn *report)
{
	/* a singleton start (no mpirun) skips the slow network probing */
	if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK")) {
		setenv("OMPI_MCA_pml", "ob1", 0);
		setenv("OMPI_MCA_btl", "self,vader", 0);
		setenv("OMPI_MCA_osc", "^ucx,rdma", 0);
	}
	int provided;
	st_watch_block_signals();
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	struct job *j = calloc(1, sizeof(*j));
	if (!j)
		st_die("out of memory");
	MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &j->size);
	j->report = report;
	j->host_comm = MPI_COMM_NULL;
	MPI_Comm_dup(MPI_COMM_WORLD, &j->progress_comm);
	MPI_Comm_dup(MPI_COMM_WORLD, &j->step_comm);
	int rc = setup_config(j, argc, argv);
	if (!rc && j->cfg.o[ST_OPT_DRY_RUN].n) {
		if (j->rank == 0)
			dry_run(j);
	} else if (!rc) {
		rc = run_job(j, argc, argv);
	}
	fflush(stdout);
	st_store_close(j->store);
	if (j->topo)
		hwloc_topology_destroy(j->topo);
	free(j->hosts);
	free(j->roles);
	free(j->partners);
	st_sampler_free(j->sampler);
	if (j->host_comm != MPI_COMM_NULL)
		MPI_Comm_free(&j->host_comm);
	MPI_Comm_free(&j->progress_comm);
	MPI_Comm_free(&j->step_comm);
	free(j->last_step);
	free(j->offsets);
	free(j->rtts);
	free(j);
	st_watch_unblock_signals();
	MPI_Finalize();
	return rc;
}
