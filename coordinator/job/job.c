/*
 * job.c - the MPI job: `mpirun stcluster [options]`, from the command line
 * to the exit status.
 *
 * Before MPI starts, every process parses and the one that will be rank 0
 * validates (before anything is created): bad input ends there. Then all
 * ranks parse again the plan rank 0 broadcasts, and rank 0 broadcasts a
 * status, so every rank takes the same exit path. Then the
 * run's id, the hosts and their roles, the clocks, the run stored, the
 * baselines, and the sweep: every combination through the phase script
 * (combo.c). Only rank 0 prints and touches the store.
 */
#include "job.h"

#include "../../common/options.h"
#include "../../common/permute.h"
#include "../../common/phaseopt.h"
#include "../../common/units.h"
#include "../../common/util.h"
#include "../../common/wire.h"
#include "../../worker/engine.h"
#include "../../worker/hostinfo.h"
#include "../../worker/mount.h"
#include "../../worker/sampler.h"
#include "../../worker/srvopts.h"
#include "../../worker/worker.h"
#include "../store/live.h"
#include "../store/store.h"
#include "baselines.h"
#include "clocksync.h"
#include "combo.h"
#include "die.h"
#include "output.h"
#include "progress.h"
#include "roles.h"
#include "server.h"
#include "search.h"
#include "state.h"
#include "steps.h"
#include "watch.h"

#include <errno.h>
#include <fcntl.h>
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
#define DEFAULT_CONF "./stcluster.conf"

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

/* Before anything else crosses MPI: every rank was built with the same
 * wire structs (wire.h), or the job ends, naming the first rank that was
 * not (mpirun then ends every rank; exit status 3). */
static void check_wire(const struct job *j)
{
	uint64_t mine = st_wire_stamp(), *all = NULL;
	if (j->rank == 0 && !(all = calloc((size_t)j->size, sizeof(*all))))
		st_die("out of memory");
	MPI_Gather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	for (int r = 0; j->rank == 0 && r < j->size; r++)
		if (all[r] != mine)
			st_die("rank %d runs another stcluster (wire version %u, stamp %08x; this one: "
			       "%u, %08x)",
			       r, (unsigned)(all[r] >> 32), (unsigned)all[r], (unsigned)(mine >> 32),
			       (unsigned)mine);
	free(all);
}

/* Rank 0: read a plan file into *text (caller frees). */
static int read_plan(const char *path, char **text, char *err, size_t n)
{
	/* a FIFO would block the open (and the read) for ever: look before */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		snprintf(err, n, "--plan: cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, n, "--plan: '%s' is not a regular file", path);
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, n, "--plan: cannot read '%s': %s", path, strerror(errno));
		close(fd);
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

/* What the command line says of the plan, read by the one parser of the
 * options (a word is an option's value or an option, never both: with
 * `--label --plan=x` there is no --plan). Unparsable arguments give none
 * of them; parse_options then says why. */
struct plan_args {
	char resume[ST_STR_MAX]; /* --resume RUN, or "" */
	char plan[ST_STR_MAX];	 /* --plan FILE, or "" */
	char db[ST_STR_MAX];	 /* --db PATH, or the default */
};

static void scan_args(int argc, char **argv, struct plan_args *pa)
{
	char err[ST_ERR_MAX];
	struct st_config *c = malloc(sizeof(*c));
	memset(pa, 0, sizeof(*pa));
	st_copy(pa->db, sizeof(pa->db), st_options[ST_OPT_DB].def);
	if (!c)
		st_die("out of memory");
	st_config_defaults(c);
	if (st_config_parse_args(c, argc, argv, err, sizeof(err)) == 0) {
		if (c->o[ST_OPT_RESUME].n)
			st_copy(pa->resume, sizeof(pa->resume), c->o[ST_OPT_RESUME].s);
		if (c->o[ST_OPT_PLAN].n)
			st_copy(pa->plan, sizeof(pa->plan), c->o[ST_OPT_PLAN].s);
		st_copy(pa->db, sizeof(pa->db), c->o[ST_OPT_DB].s);
	}
	free(c);
}

/* A run in which no phase of any combination can run would measure
 * nothing: refused, with the first one's reason. */
static int nothing_runs(const struct job *j, char *err, size_t n)
{
	uint64_t combos = st_plan_combos(&j->cfg);
	char why[ST_ERR_MAX] = "";
	for (uint64_t i = 0; i < combos; i++) {
		struct st_combo k;
		char w[ST_ERR_MAX];
		st_plan_combo(&j->cfg, i, &k);
		if ((st_combo_skips(j, &k, w, sizeof(w)) & j->phases) != j->phases)
			return 0;
		if (!i)
			st_copy(why, sizeof(why), w);
	}
	snprintf(err, n, "every combination would be skipped, nothing measured (the first: %s)",
		 why);
	return -1;
}

/* Rank 0's checks that look at the file system; creates nothing. */
static int validate_places(const struct job *j, char *err, size_t n)
{
	const struct st_config *c = &j->cfg;
	if (c->o[ST_OPT_DRY_RUN].n)
		return 0;
	if (nothing_runs(j, err, n))
		return -1;
	/* a rank 0 on the NFS server's host does no client I/O: the target
	 * need not exist there (with --mount, check_mount_targets asks every
	 * client host) */
	struct st_host_info me = { 0 };
	st_hostinfo_names(&me);
	int here = (j->engine->caps & ST_EC_NEEDS_TARGET_DIR) && !st_host_is_server(c, &me);
	if (here && !c->o[ST_OPT_MOUNT].n) {
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
	char why[ST_ERR_MAX];
	/* the system's own places (/proc, and with --mount /etc ...), as this
	 * host resolves them; check_mount_targets asks every client host */
	if (here && st_mount_refuse_system(c->o[ST_OPT_TARGET].s, c->o[ST_OPT_MOUNT].n > 0, why,
					   sizeof(why))) {
		snprintf(err, n, "--target: '%s': %s", c->o[ST_OPT_TARGET].s, why);
		return -1;
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
	if (st_output_check(c, err, n))
		return -1;
	return st_store_check_path(c->o[ST_OPT_DB].s, 1, err, n);
}

/* Rank 0: the plan's text, if there is one (caller frees *plan), and the
 * name to report it under: the stored plan of the run --resume names (its
 * id into j->run_id), a --plan file, or ./stcluster.conf when there are no
 * arguments at all. 0, 2 bad input (err), 3 nothing to do (no arguments and
 * no ./stcluster.conf). */
static int read_plan_text(struct job *j, int argc, const struct plan_args *pa, char **plan,
			  const char **plan_name, char *err, size_t n)
{
	*plan_name = pa->plan[0] ? pa->plan : NULL;
	if (pa->resume[0]) {
		/* the run's own options, as stored, are the plan */
		return st_store_resume_plan(pa->db, pa->resume, j->run_id, sizeof(j->run_id), plan,
					    err, n)
			       ? 2
			       : 0;
	}
	if (!*plan_name && argc == 1) {
		if (access(DEFAULT_CONF, F_OK) != 0)
			return 3;
		*plan_name = DEFAULT_CONF;
	}
	return *plan_name && read_plan(*plan_name, plan, err, n) ? 2 : 0;
}

/* Rank 0's plan text to every rank, with the name it goes by (name: a
 * buffer of ST_STR_MAX; resuming, "run <id>" with the run's id). Every
 * rank then parses the same text under the same name. Returns the text
 * (NULL: none), which the caller frees; *plan_name is NULL without one. */
static char *broadcast_plan(struct job *j, char *plan, const char **plan_name, int resuming,
			    char *name)
{
	int64_t len = j->rank == 0 && plan ? (int64_t)strlen(plan) : 0;
	int32_t named = j->rank == 0 && *plan_name;
	MPI_Bcast(&len, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
	MPI_Bcast(&named, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
	if (j->rank == 0 && named)
		st_copy(name, ST_STR_MAX, *plan_name);
	if (named)
		MPI_Bcast(name, ST_STR_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (resuming) {
		MPI_Bcast(j->run_id, sizeof(j->run_id), MPI_CHAR, 0, MPI_COMM_WORLD);
		snprintf(name, ST_STR_MAX, "run %s", j->run_id);
	}
	*plan_name = named || resuming ? name : NULL;
	if (j->rank != 0 && !(plan = malloc((size_t)len + 1)))
		st_die("out of memory for the plan");
	if (len)
		MPI_Bcast(plan, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (plan)
		plan[len] = '\0';
	return plan;
}

/* Every rank: the options from the command line (which wins) and the
 * plan, checked; the engine they name. 0, or -1 with err. */
static int parse_options(struct job *j, int argc, char **argv, const char *plan,
			 const char *plan_name, char *err, size_t n)
{
	st_config_defaults(&j->cfg);
	int rc = st_config_parse_args(&j->cfg, argc, argv, err, n);
	if (!rc && plan_name)
		rc = st_config_parse_plan(&j->cfg, plan ? plan : "", plan_name, err, n);
	if (!rc)
		rc = st_engine_choose(&j->cfg, &j->engine, err, n);
	if (rc)
		return rc;
	const char *missing;
	if (st_engine_check(j->engine, &missing))
		st_die("engine %s lacks %s", j->engine->name, missing);
	j->phases = st_config_phases(&j->cfg);
	/* the run stores the engine it ran, the default one too */
	if (!j->cfg.o[ST_OPT_ENGINE].n &&
	    st_config_set(&j->cfg, ST_OPT_ENGINE, j->engine->name, 0, NULL, err, n))
		st_die("engine name %s: %s", j->engine->name, err);
	return 0;
}

/* A collective decision: rank 0's status to every rank, which all return;
 * rank 0 says why (status 3: the usage). */
static int agree(const struct job *j, int status, const char *err)
{
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (status && j->rank == 0) {
		if (status == 3)
			usage_short(stderr);
		else
			fprintf(stderr, "stcluster: %s\n", err);
	}
	return status;
}

/* Step 1 of the data flow: every rank parses the same command line (and
 * plan) into the run's options; rank 0 validates them, before anything is
 * created, and its options are the run's. 0 to go on, else the exit status. */
static int setup_config(struct job *j, int argc, char **argv)
{
	char err[ST_ERR_MAX] = "", name[ST_STR_MAX];
	char *plan = NULL;
	const char *plan_name = NULL;
	struct plan_args pa;
	scan_args(argc, argv, &pa);
	int resuming = pa.resume[0] != '\0';
	int status = j->rank == 0 ? read_plan_text(j, argc, &pa, &plan, &plan_name, err,
						   sizeof(err))
				  : 0;
	if (agree(j, status, err)) {
		free(plan);
		return 2;
	}
	plan = broadcast_plan(j, plan, &plan_name, resuming, name);
	int rc = parse_options(j, argc, argv, plan, plan_name, err, sizeof(err));
	free(plan);
	if (j->rank == 0 && !rc && !j->checked)
		rc = validate_places(j, err, sizeof(err));
	if (agree(j, rc ? 2 : 0, err))
		return 2;
	/* rank 0's configuration is the run's, byte for byte */
	MPI_Bcast(&j->cfg, (int)sizeof(j->cfg), MPI_BYTE, 0, MPI_COMM_WORLD);
	j->phases = st_config_phases(&j->cfg);
	j->quiet = j->cfg.o[ST_OPT_QUIET].n > 0;
	j->progress = st_progress_mode(j);
	MPI_Bcast(&j->progress, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return 0;
}

/* Which rank this process will be, before MPI_Init says: the launcher's
 * word (Open MPI, PMIx), else a singleton's 0. */
static int rank_before_init(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	if (!r)
		r = getenv("PMIX_RANK");
	return r && strcmp(r, "0") != 0;
}

/* Step 0, before MPI_Init: bad input is refused with one line and exit
 * status 2 that no MPI library's start or finalize can change (nor crash
 * on). Every process parses the command line; the one that will be rank 0
 * also reads the plan and makes rank 0's checks, which setup_config then
 * need not repeat (j->checked). Only rank 0 says why. 0 to go on, else 2. */
static int check_before_init(struct job *j, int argc, char **argv)
{
	char err[ST_ERR_MAX] = "", name[ST_STR_MAX], cwd[8];
	char *plan = NULL;
	const char *plan_name = NULL;
	struct plan_args pa;
	j->rank = rank_before_init();
	int status = 0;
	if (!getcwd(cwd, sizeof(cwd)) && errno == ENOENT) {
		status = 2;
		snprintf(err, sizeof(err), "the working directory no longer exists (cd to one that "
					   "does)");
	}
	if (!status && j->rank != 0) {
		/* the plan is rank 0's: here only what the command line says */
		st_config_defaults(&j->cfg);
		return st_config_parse_args(&j->cfg, argc, argv, err, sizeof(err)) ? 2 : 0;
	}
	scan_args(argc, argv, &pa);
	if (!status)
		status = read_plan_text(j, argc, &pa, &plan, &plan_name, err, sizeof(err));
	if (!status && pa.resume[0]) {
		snprintf(name, sizeof(name), "run %s", j->run_id);
		plan_name = name;
	}
	if (!status && (parse_options(j, argc, argv, plan, plan_name, err, sizeof(err)) ||
			validate_places(j, err, sizeof(err))))
		status = 2;
	free(plan);
	if (status && j->rank == 0) {
		if (status == 3)
			usage_short(stderr);
		else
			fprintf(stderr, "stcluster: %s\n", err);
	}
	j->checked = !status && j->rank == 0;
	return status ? 2 : 0;
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
	st_phase_print(&j->cfg, j->phases, stdout);
	for (uint64_t i = 0; i < n; i++) {
		struct st_combo c;
		char text[1024];
		st_plan_combo(&j->cfg, i, &c);
		st_combo_text(&j->cfg, &c, text, sizeof(text));
		printf("%4llu  %s\n", (unsigned long long)i + 1, text);
	}
	if (j->cfg.o[ST_OPT_SEARCH].v[0] == ST_SEARCH_HALVING)
		st_search_print_plan(&j->cfg, stdout);
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
	for (int r = 0; r < j->size; r++)
		st_wire_expect(r, "its host facts", j->hosts[r].version, ST_WIRE_VERSION);
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

/* The run's id: a new one, made by rank 0 (a resumed run keeps its own,
 * which setup_config broadcast), to every rank; the run directory and the
 * --verify pattern's seed follow from it. */
static void run_identity(struct job *j, int resuming)
{
	if (j->rank == 0 && !resuming) {
		uuid_t u;
		uuid_generate(u);
		uuid_unparse_lower(u, j->run_id);
	}
	MPI_Bcast(j->run_id, sizeof(j->run_id), MPI_CHAR, 0, MPI_COMM_WORLD);
	snprintf(j->run_dir, sizeof(j->run_dir), "stcluster-%s", j->run_id);
	for (const char *p = j->run_id; *p; p++)
		j->run_seed = st_mix64(j->run_seed ^ (uint64_t)(unsigned char)*p);
}

/* Step 2 of the data flow: every rank describes itself, all learn each
 * other's host facts and roles. A server --servers names that no rank runs
 * on, or no client rank left, is bad input: 0, or 2 after the message. */
static int cluster_roles(struct job *j)
{
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
		if (!(j->sampler = st_sampler_new(200000)))
			st_die("out of memory");
		char path[256]; /* the export's disk, where it has one */
		st_srv_export_path(&j->cfg, path, sizeof(path));
		st_sampler_export(j->sampler, path);
	}
	return 0;
}

/* Before anything is created, on every client host (its local rank 0):
 * with --mount, the target is a directory stcluster may mount on - none of
 * the system's places, not a mount point already unless --mount-over - and
 * the rank is root; without, a target directory is none of the kernel's
 * places (st_mount_refuse_system). 0, or 2 after one line naming the first
 * host that says no. */
static int check_mount_targets(struct job *j)
{
	int mount = j->cfg.o[ST_OPT_MOUNT].n > 0;
	if (!mount && !(j->engine->caps & ST_EC_NEEDS_TARGET_DIR))
		return 0;
	struct st_target_check_msg me = { 0 }, *all = NULL;
	const char *t = j->cfg.o[ST_OPT_TARGET].s;
	if (j->roles[j->rank] == ST_ROLE_CLIENT && j->hosts[j->rank].local_rank == 0) {
		if (!mount) {
			me.rc = st_mount_refuse_system(t, 0, me.msg, sizeof(me.msg));
		} else if (geteuid() != 0) {
			me.rc = -EPERM;
			snprintf(me.msg, sizeof(me.msg), "mounting needs root (euid %d)", (int)geteuid());
		} else {
			/* a resumed run's own mount, left by a crash: replaced */
			me.rc = j->cfg.o[ST_OPT_RESUME].n > 0
					? st_mount_left_replace(t, j->run_id, me.msg, sizeof(me.msg))
					: 0;
			if (me.rc > 0) {
				fprintf(stderr, "stcluster: note: host %s: %s\n",
					j->hosts[j->rank].hostname, me.msg);
				me.rc = 0;
			}
			if (!me.rc)
				me.rc = st_mount_check_target(t, j->cfg.o[ST_OPT_MOUNT_OVER].n > 0,
							      me.msg, sizeof(me.msg));
		}
	}
	if (j->rank == 0 && !(all = calloc((size_t)j->size, sizeof(*all))))
		st_die("out of memory");
	MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0,
		   MPI_COMM_WORLD);
	int bad = -1;
	for (int r = 0; j->rank == 0 && r < j->size && bad < 0; r++)
		if (all[r].rc)
			bad = r;
	if (bad >= 0)
		fprintf(stderr, "stcluster: --%s: '%s' on host %s (rank %d): %s\n",
			all[bad].rc == -EPERM ? "mount" : "target", t, j->hosts[bad].hostname, bad,
			all[bad].msg);
	free(all);
	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return bad >= 0 ? 2 : 0;
}

/* Step 3: each rank's clock offset to rank 0 (ping-pong, the lowest
 * round trip kept), so every timing lands on one timeline. */
static void sync_clocks(struct job *j)
{
	j->offsets = calloc((size_t)j->size, sizeof(int64_t));
	j->rtts = calloc((size_t)j->size, sizeof(int64_t));
	if (!j->offsets || !j->rtts)
		st_die("out of memory");
	j->my_offset = st_clock_sync(MPI_COMM_WORLD, 20, j->offsets, j->rtts);
}

/* The file --db names (its device and inode), or -1 with err: a store
 * removed during the run took the run with it. */
static int store_file(const char *path, uint64_t *dev, uint64_t *ino, char *err, size_t n)
{
	struct stat st;
	if (stat(path, &st)) {
		snprintf(err, n, "the store '%s' is gone (%s): the run was stored in a file that "
				 "no longer exists",
			 path, strerror(errno));
		return -1;
	}
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

/* Rank 0 opens the store, holds the run's live lock (live.h) and stores
 * the run with its hosts (resuming: the seqs already stored, into
 * *stored); all agree it worked. 0, or the exit status after the message:
 * 2 another job runs this run (a second --resume) or a halving run another
 * build planned otherwise, 3 the store failed. */
static int begin_run(struct job *j, int argc, char **argv, const struct st_search_plan *plan,
		     int resuming, unsigned char **stored)
{
	char err[ST_ERR_MAX] = "";
	uint64_t total = plan->runs;
	int status = 0;
	if (j->rank == 0) {
		char *cmd = st_join_words(argc, argv);
		st_watch_room_for_lifelines(j->size);
		/* held once the store's file exists (the lock is known by it), before
		 * the run's row does, so no reader sees it running unlocked */
		j->store = st_store_open(j->cfg.o[ST_OPT_DB].s, 0, err, sizeof(err));
		int held = !j->store ? -1
				     : st_live_hold(j->cfg.o[ST_OPT_DB].s, j->run_id, &j->live, err,
						    sizeof(err));
		if (held == 1)
			snprintf(err, sizeof(err), "--resume: run %s is still running (another job holds "
						   "its lock): two jobs would write the same combinations",
				 j->run_id);
		if (held)
			status = held == 1 ? ST_EXIT_BAD_INPUT : ST_EXIT_ABORTED;
		struct st_run_record rec = {
			.run_id = j->run_id, .cfg = &j->cfg, .command = cmd,
			.started_wall_ns = st_wall_ns(), .nranks = j->size, .nhosts = count_hosts(j),
			.combos_planned = total, .hosts = j->hosts, .roles = j->roles,
			.clock_offset_ns = j->offsets, .clock_rtt_ns = j->rtts,
			.partners = j->partners, .resume = resuming,
		};
		if (!status && resuming)
			status = st_search_check_resume(j, plan, err, sizeof(err));
		if (status)
			;
		else if (st_store_begin_run(j->store, &rec, err, sizeof(err)) ||
			 store_file(j->cfg.o[ST_OPT_DB].s, &j->db_dev, &j->db_ino, err, sizeof(err)))
			status = ST_EXIT_ABORTED;
		else if (resuming &&
			 st_store_stored_seqs(j->store, j->run_id, total, stored, err, sizeof(err)))
			status = ST_EXIT_ABORTED;
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
	return status;
}

/* From here on a rank that dies or hangs is named: the watch, and rank 0's
 * record of the collective step each rank has reached. */
static void start_watch(struct job *j, uint64_t total)
{
	/* a silent rank 0 is given what a hung rank is given: the deadline and its grace */
	j->watch = st_watch_start(MPI_COMM_WORLD, j->hosts, j->cfg.o[ST_OPT_DB].s, j->run_id, total,
				  st_step_deadline(j, 0));
	st_watch_set_cleanup(j->watch, st_step_remove_on_signal, j);
	if (j->rank == 0) {
		j->last_step = calloc((size_t)j->size, sizeof(int));
		if (!j->last_step)
			st_die("out of memory");
	}
}

/* Server ranks measure the parts alone (network, disk) before the sweep;
 * once per run: a resumed run keeps the baselines its first part stored
 * (measured again, they were stored twice). */
static void baselines(struct job *j, int resuming)
{
	int64_t kept = 0;
	if (j->rank == 0 && resuming)
		kept = st_store_baseline_rows(j->store, j->run_id);
	MPI_Bcast(&kept, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
	if (kept > 0) {
		if (j->rank == 0 && !j->quiet)
			printf("baselines: the %lld the run stored before are kept\n", (long long)kept);
		return;
	}
	struct st_baseline_ctx bc = { .cfg = &j->cfg, .hosts = j->hosts, .roles = j->roles,
				      .rank = j->rank, .size = j->size, .my_offset = j->my_offset,
				      .run_id = j->run_id, .store = j->store, .quiet = j->quiet };
	st_run_baselines(&bc);
}

/* Steps 4 to 6, per combination: rank 0 broadcasts it, and it goes through
 * the phase script (combo.c). The order: matrix order, each combination's
 * iterations in a row; or shuffled by --shuffle SEED (the same order again
 * when resuming, which skips the seqs already stored). A store write that
 * failed ends the sweep. */
static void sweep(struct job *j, uint64_t total, const unsigned char *stored)
{
	int64_t iterations = j->cfg.o[ST_OPT_ITERATIONS].v[0];
	j->run_start_ns = st_now_ns();
	for (uint64_t seq = 0; j->rank == 0 && seq < total; seq++)
		j->combos_todo += !(stored && stored[seq]);
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
		st_wire_expect(0, "a combination", c.version, ST_COMBO_VERSION);
		st_combo_run(j, &c, total);
		MPI_Bcast(&j->store_failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (j->store_failed)
			break;
	}
}

/* Rank 0: the exit status of a run that went through its sweep, from what
 * the store holds of it (a resumed run: both parts), and a line that says
 * why when it is not 0. */
static int run_outcome(struct job *j)
{
	struct st_run_counts c;
	char err[ST_ERR_MAX];
	if (st_store_run_counts(j->store, j->run_id, &c, err, sizeof(err))) {
		fprintf(stderr, "stcluster: %s\n", err);
		return ST_EXIT_ABORTED;
	}
	int64_t bad = c.error + c.failed + c.unverified;
	if (bad && !j->quiet)
		printf("%lld of %lld combinations did not go well: %lld with errors, %lld failed to "
		       "prepare, %lld did not verify (exit status 1)\n",
		       (long long)bad, (long long)c.stored, (long long)c.error, (long long)c.failed,
		       (long long)c.unverified);
	return bad ? ST_EXIT_FAILURES : ST_EXIT_OK;
}

struct end_work {
	struct job *j;
	const struct st_worker_args *wa;
	char *left; /* what remove_local could not remove */
	size_t n;
};

static void remove_local(void *arg)
{
	struct end_work *e = arg;
	st_worker_remove_run_dir(e->wa, 0, e->left, e->n);
}

static void release_local(void *arg)
{
	struct job *j = ((struct end_work *)arg)->j;
	char msg[ST_ERR_MAX];
	if (st_mount_release(j->mnt, 0, msg, sizeof(msg)))
		fprintf(stderr, "stcluster: rank %d (host %s): %s\n", j->rank,
			j->hosts[j->rank].hostname, msg);
}

/* The end, once every rank is through the sweep: what is left of this
 * run's files removed; rank 0 marks the run complete (or failed: a store
 * write failed) and prints its report; the watch ends in order. Returns
 * the exit status (common/util.h), the same on every rank. */
static int end_run(struct job *j)
{
	MPI_Request q;
	MPI_Ibarrier(MPI_COMM_WORLD, &q);
	st_step_await(j, &q, st_now_ns(), "the end of the sweep");
	struct st_combo none;
	st_plan_combo(&j->cfg, 0, &none);
	struct st_worker_args wa = { .engine = j->engine, .cfg = &j->cfg, .combo = &none,
				     .rank = j->rank, .run_dir = j->run_dir };
	/* what no rank could remove (a frozen server) is said in the run */
	char left[512] = "", *all = NULL;
	struct end_work ew = { .j = j, .wa = &wa, .left = left, .n = sizeof(left) };
	/* a rank that never made anything (its engine never reached the
	 * target: every preparation failed) has nothing to look for, nor to name */
	if (j->roles[j->rank] == ST_ROLE_CLIENT && j->touched)
		st_step_local(j, remove_local, &ew, st_now_ns(), "the end of removing its files");
	/* the target as it was before the run: stcluster's mount taken away,
	 * once every rank of the host is done with it */
	if (j->cfg.o[ST_OPT_MOUNT].n && j->roles[j->rank] == ST_ROLE_CLIENT) {
		MPI_Barrier(j->host_comm);
		if (j->mnt)
			st_step_local(j, release_local, &ew, st_now_ns(), "the end of its umount");
	}
	st_server_restore(j, left, sizeof(left)); /* the server as it was before the run */
	if (j->rank == 0 && !(all = calloc((size_t)j->size, sizeof(left))))
		st_die("out of memory");
	MPI_Gather(left, (int)sizeof(left), MPI_CHAR, all, (int)sizeof(left), MPI_CHAR, 0,
		   MPI_COMM_WORLD);

	int rc = 0;
	if (j->rank == 0) {
		char err[ST_ERR_MAX], cleanup[2048] = "";
		for (int r = 0; r < j->size; r++) {
			const char *l = all + (size_t)r * sizeof(left);
			size_t off = strlen(cleanup);
			if (*l)
				snprintf(cleanup + off, sizeof(cleanup) - off, "%srank %d (host %s): %.*s",
					 off ? "; " : "", r, j->hosts[r].hostname, (int)sizeof(left) - 1, l);
		}
		free(all);
		if (cleanup[0])
			fprintf(stderr, "stcluster: left behind on the target (remove it by hand, or "
					"with --resume of a later run): %s\n",
				cleanup);
		const char *run_status = j->store_failed ? ST_RUN_STORE_FAILED : ST_RUN_COMPLETE;
		uint64_t dev, ino;
		if (st_store_end_run(j->store, j->run_id, run_status, cleanup[0] ? cleanup : NULL, err,
				     sizeof(err)) ||
		    store_file(j->cfg.o[ST_OPT_DB].s, &dev, &ino, err, sizeof(err)) ||
		    ((dev != j->db_dev || ino != j->db_ino) &&
		     snprintf(err, sizeof(err), "the store '%s' was replaced during the run: "
						"the run is not in it",
			      j->cfg.o[ST_OPT_DB].s))) {
			fprintf(stderr, "stcluster: %s\n", err);
			j->store_failed = 1;
		}
		int out_failed = !j->store_failed && j->report && j->cfg.o[ST_OPT_OUTPUT].n &&
				 st_output_write(j);
		if (!j->quiet && !j->store_failed) {
			printf("\n");
			if (j->report)
				j->report(j->store, j->run_id, 1, ST_FMT_TABLE, stdout);
			printf("\nstored as run %s in %s (stcluster report / runs / query)\n", j->run_id,
			       j->cfg.o[ST_OPT_DB].s);
		}
		rc = j->store_failed ? ST_EXIT_ABORTED : run_outcome(j);
		if (out_failed && rc == ST_EXIT_OK)
			rc = ST_EXIT_FAILURES;
		fflush(stdout);
	}
	/* from here on the ranks may end: rank 0 stops watching first */
	if (j->rank == 0)
		st_watch_stop(j->watch);
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (j->rank)
		st_watch_stop(j->watch);
	j->watch = NULL;
	return rc;
}

/* After setup_config: DESIGN's data flow, step by step. */
static int run_job(struct job *j, int argc, char **argv)
{
	int resuming = j->cfg.o[ST_OPT_RESUME].n > 0;
	run_identity(j, resuming);
	if (cluster_roles(j) || check_mount_targets(j))
		return 2;
	sync_clocks(j);
	struct st_search_plan plan;
	st_search_plan(&j->cfg, &plan);
	uint64_t total = plan.runs; /* a full sweep: combinations x iterations */
	unsigned char *stored = NULL; /* rank 0, resuming: seq already stored */
	int rc = begin_run(j, argc, argv, &plan, resuming, &stored);
	if (rc) {
		free(stored);
		return rc;
	}
	start_watch(j, total);
	baselines(j, resuming);
	if (j->cfg.o[ST_OPT_SEARCH].v[0] == ST_SEARCH_HALVING)
		st_search_sweep(j, &plan, stored);
	else
		sweep(j, total, stored);
	free(stored);
	return end_run(j);
}

int st_cmd_run(int argc, char **argv, st_run_report_fn *report)
{
	/* a singleton start (no mpirun) skips the slow network probing */
	if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK")) {
		setenv("OMPI_MCA_pml", "ob1", 0);
		setenv("OMPI_MCA_btl", "self,vader", 0);
		setenv("OMPI_MCA_osc", "^ucx,rdma", 0);
	}
	struct job *j = calloc(1, sizeof(*j));
	if (!j || pthread_mutex_init(&j->mnt_mu, NULL))
		st_die("out of memory");
	if (check_before_init(j, argc, argv)) {
		pthread_mutex_destroy(&j->mnt_mu);
		free(j);
		return 2;
	}
	int provided;
	st_watch_block_signals();
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &j->size);
	j->report = report;
	j->host_comm = MPI_COMM_NULL;
	MPI_Comm_dup(MPI_COMM_WORLD, &j->progress_comm);
	MPI_Comm_dup(MPI_COMM_WORLD, &j->step_comm);
	check_wire(j);
	int rc = setup_config(j, argc, argv);
	if (!rc && j->cfg.o[ST_OPT_DRY_RUN].n) {
		if (j->rank == 0)
			dry_run(j);
	} else if (!rc) {
		rc = run_job(j, argc, argv);
	}
	fflush(stdout);
	st_store_close(j->store);
	st_live_release(j->live);
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
	free(j->mnt);
	free(j->srv);
	pthread_mutex_destroy(&j->mnt_mu);
	free(j->offsets);
	free(j->rtts);
	free(j);
	st_watch_unblock_signals();
	MPI_Finalize();
	return rc;
}
