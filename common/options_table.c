/*
 * options_table.c - the options table itself: one row per option
 * (st_options[], designated fields; see options.h for what each means) and
 * the words of each choice option at the index its enum gives. What the
 * table drives - parsing, the checks, --help, the plan text - is options.c.
 */
#include "options.h"

#include "util.h"

/* The words of each choice option, at the index its enum gives (options.h). */
static const char *const on_off[] = { [ST_OFF] = "off", [ST_ON] = "on", [ST_ON_OFF_COUNT] = NULL };
static const char *const stonewall_modes[] = { [ST_OFF] = "off", [ST_ON] = "on",
					       [ST_STONEWALL_WEAROUT] = "wearout", [ST_STONEWALL_COUNT] = NULL };
static const char *const binds[] = { [ST_BIND_NONE] = "none", [ST_BIND_CORE] = "core",
				     [ST_BIND_PU] = "pu", [ST_BIND_NUMA] = "numa",
				     [ST_BIND_COUNT] = NULL };
static const char *const layouts[] = { [ST_LAYOUT_FPT] = "file-per-thread",
				       [ST_LAYOUT_SHARED] = "shared", [ST_LAYOUT_COUNT] = NULL };
static const char *const accesses[] = { [ST_ACCESS_SEGMENTED] = "segmented",
					[ST_ACCESS_STRIDED] = "strided", [ST_ACCESS_COUNT] = NULL };
static const char *const dir_modes[] = { [ST_DIR_UNIQUE] = "unique", [ST_DIR_SHARED] = "shared",
					 [ST_DIR_MODE_COUNT] = NULL };
static const char *const verses[] = { [ST_VERS_3] = "3", [ST_VERS_4] = "4", [ST_VERS_4_1] = "4.1",
				      [ST_VERS_4_2] = "4.2", [ST_VERS_COUNT] = NULL };
/* nfs(5) and mountinfo spell NFSv4.0 so */
static const char *const vers_aliases[] = { "4.0", "4", NULL };
static const char *const protos[] = { [ST_PROTO_TCP] = "tcp", [ST_PROTO_UDP] = "udp",
				      [ST_PROTO_RDMA] = "rdma", [ST_PROTO_COUNT] = NULL };
static const char *const syncs[] = { [ST_SYNC_SYNC] = "sync", [ST_SYNC_ASYNC] = "async",
				     [ST_SYNC_COUNT] = NULL };
static const char *const hards[] = { [ST_HARD_HARD] = "hard", [ST_HARD_SOFT] = "soft",
				     [ST_HARD_COUNT] = NULL };
static const char *const acs[] = { [ST_AC_AC] = "ac", [ST_AC_NOAC] = "noac", [ST_AC_COUNT] = NULL };
static const char *const progresses[] = { [ST_PROGRESS_AUTO] = "auto", [ST_PROGRESS_LIVE] = "live",
					  [ST_PROGRESS_PLAIN] = "plain", [ST_PROGRESS_NONE] = "none",
					  [ST_PROGRESS_COUNT] = NULL };
static const char *const out_formats[] = { [ST_OUT_TABLE] = "table", [ST_OUT_CSV] = "csv",
					   [ST_OUT_JSON] = "json", [ST_OUT_MARKDOWN] = "markdown",
					   [ST_OUT_COUNT] = NULL };
static const char *const searches[] = { [ST_SEARCH_FULL] = "full", [ST_SEARCH_HALVING] = "halving",
					[ST_SEARCH_COUNT] = NULL };
const char *const st_phase_names[ST_PHASE_COUNT + 1] = {
	[ST_PHASE_WRITE] = "write",	  [ST_PHASE_REWRITE] = "rewrite",
	[ST_PHASE_READ] = "read",	  [ST_PHASE_REREAD] = "reread",
	[ST_PHASE_RANDREAD] = "randread", [ST_PHASE_RANDWRITE] = "randwrite",
	[ST_PHASE_RW] = "rw",		  [ST_PHASE_RANDRW] = "randrw",
	[ST_PHASE_CREATE] = "create",	  [ST_PHASE_STAT] = "stat",
	[ST_PHASE_READDIR] = "readdir",
	[ST_PHASE_OPEN] = "open",	  [ST_PHASE_REMOVE] = "remove",
	[ST_PHASE_MKDIR] = "mkdir",	  [ST_PHASE_DIRSTAT] = "dirstat",
	[ST_PHASE_RMDIR] = "rmdir",
	[ST_PHASE_COUNT] = NULL,
};

/* A word added to a list without its enum value (or the other way round)
 * changes the list's length: the build stops here. A hole (a value without
 * its word) ends the list early: test_options finds that one. */
#define ST_CHOICES(list, count) \
	_Static_assert(ST_ARRAY_LEN(list) == (count) + 1, #list " does not match its enum")
ST_CHOICES(on_off, ST_ON_OFF_COUNT);
ST_CHOICES(binds, ST_BIND_COUNT);
ST_CHOICES(layouts, ST_LAYOUT_COUNT);
ST_CHOICES(accesses, ST_ACCESS_COUNT);
ST_CHOICES(dir_modes, ST_DIR_MODE_COUNT);
ST_CHOICES(verses, ST_VERS_COUNT);
ST_CHOICES(protos, ST_PROTO_COUNT);
ST_CHOICES(syncs, ST_SYNC_COUNT);
ST_CHOICES(hards, ST_HARD_COUNT);
ST_CHOICES(acs, ST_AC_COUNT);
ST_CHOICES(progresses, ST_PROGRESS_COUNT);
_Static_assert(ST_ARRAY_LEN(st_phase_names) == ST_PHASE_COUNT + 1, "st_phase_names");
/* a set of phases is an unsigned mask of 1u << ST_PHASE_* (st_config_phases,
 * ST_PHASES_*, an engine's unsupported()) */
_Static_assert(ST_PHASE_COUNT <= 32, "a phase mask has a bit for every phase");

#define SEC 1000000000LL

#define NFS (ST_OF_SWEEP | ST_OF_NFS)

const struct st_opt_def st_options[ST_OPT_COUNT] = {
	[ST_OPT_TARGET] = {
		.name = "target", .arg = "DIR|URL", .type = ST_T_STRING,
		.help = "directory (posix) or nfs://server/export/dir URL (libnfs) to test; each "
			"run works in stcluster-<run id>/ under it",
	},
	/* the engines, and the default (the first), are the worker's registry:
	 * --help and the man page list them, st_engine_choose checks the name */
	[ST_OPT_ENGINE] = {
		.name = "engine", .arg = "NAME", .type = ST_T_STRING,
		.help = "I/O engine, one of the ENGINES below (default: the first)",
	},
	[ST_OPT_PHASES] = {
		.name = "phases", .arg = "LIST", .type = ST_T_ENUM, .flags = ST_OF_LIST,
		.choices = st_phase_names,
		.def = "write,read",
		.help = "phases to run, always in the order "
			"write,rewrite,read,reread,randread,randwrite (data), rw,randrw (mixed, "
			"--rwmix), create,stat,readdir,open,remove,mkdir,dirstat,rmdir (metadata, --files)",
	},
	[ST_OPT_ITERATIONS] = {
		.name = "iterations", .arg = "N", .type = ST_T_COUNT,
		.min = 1, .max = 1000, .def = "1",
		.help = "repeat every combination N times",
	},
	[ST_OPT_DEADLINE] = {
		.name = "deadline", .arg = "SECONDS", .type = ST_T_DURATION,
		.min = SEC / 1000, .max = 7 * 24 * 3600 * SEC, .unit_ns = SEC, .def = "3600",
		.help = "a phase stops issuing I/O after this long (recorded as ETIMEDOUT)",
	},
	[ST_OPT_DB] = {
		.name = "db", .arg = "PATH", .type = ST_T_STRING,
		.def = ST_DB_DEFAULT,
		.help = "SQLite store (created if missing; every run is added to it)",
	},
	[ST_OPT_LABEL] = {
		.name = "label", .arg = "TEXT", .type = ST_T_STRING,
		.def = "",
		.help = "free text stored with the run",
	},
	[ST_OPT_SEED] = {
		.name = "seed", .arg = "N", .type = ST_T_COUNT,
		.max = INT64_MAX, .def = "1",
		.help = "seed of the random block order and random data",
	},
	[ST_OPT_NULL_DELAY] = {
		.name = "null-delay", .arg = "DURATION", .type = ST_T_DURATION,
		.needs = ST_NEEDS_SIM, .max = 10 * SEC, .unit_ns = 1000, .def = "0",
		.help = "null engine: time each read/write takes (plain number: us)",
	},
	[ST_OPT_NULL_ERROR] = {
		.name = "null-error", .arg = "ERRNO", .type = ST_T_ERRNO, .needs = ST_NEEDS_SIM,
		.help = "null engine: errno (name or number) to inject",
	},
	[ST_OPT_NULL_ERROR_AT] = {
		.name = "null-error-at", .arg = "N", .type = ST_T_COUNT, .needs = ST_NEEDS_SIM,
		.max = INT64_MAX, .def = "0",
		.help = "null engine: the Nth read/write of each thread fails (0-based)",
	},
	[ST_OPT_NULL_FAIL_SETUP] = {
		.name = "null-fail-setup", .arg = "RANK", .type = ST_T_COUNT, .needs = ST_NEEDS_SIM,
		.max = 1 << 20,
		.help = "null engine: preparation fails on this rank (EIO)",
	},
	[ST_OPT_PLAN] = {
		.name = "plan", .arg = "FILE", .type = ST_T_STRING, .flags = ST_OF_NO_PLAN,
		.help = "read options from FILE (key = v1,v2 lines; a [phase] section gives that "
			"phase its own block, direct, fsync, rwmix, runtime, ramp); the command "
			"line wins",
	},
	[ST_OPT_DRY_RUN] = {
		.name = "dry-run", .type = ST_T_FLAG,
		.max = 1,
		.help = "print the number of combinations and each one, then exit",
	},
	[ST_OPT_QUIET] = {
		.name = "quiet", .type = ST_T_FLAG,
		.max = 1,
		.help = "print nothing but errors while running",
	},
	[ST_OPT_BLOCK] = {
		.name = "block", .arg = "SIZE", .type = ST_T_SIZE, .flags = ST_OF_SWEEP,
		.min = 1, .max = 1LL << 30, .def = "1m",
		.help = "transfer size of each read/write call",
	},
	[ST_OPT_SIZE] = {
		.name = "size", .arg = "SIZE", .type = ST_T_SIZE, .flags = ST_OF_SWEEP,
		.min = 1, .max = 1LL << 50, .def = "64m",
		.help = "bytes per thread (each thread has its own file)",
	},
	[ST_OPT_THREADS] = {
		.name = "threads", .arg = "N", .type = ST_T_COUNT, .flags = ST_OF_SWEEP,
		.min = 1, .max = 256, .def = "1",
		.help = "I/O threads per client rank",
	},
	[ST_OPT_DIRECT] = {
		.name = "direct", .arg = "on|off", .type = ST_T_ENUM, .flags = ST_OF_SWEEP,
		.choices = on_off,
		.def = "on",
		.help = "O_DIRECT (falls back to buffered where refused, and records it)",
	},
	[ST_OPT_FSYNC] = {
		.name = "fsync", .arg = "on|off", .type = ST_T_ENUM, .flags = ST_OF_SWEEP,
		.choices = on_off,
		.def = "on",
		.help = "fsync before close inside the timed write phases (iozone -e)",
	},
	[ST_OPT_REORDER] = {
		.name = "reorder", .arg = "on|off", .type = ST_T_ENUM, .flags = ST_OF_SWEEP,
		.choices = on_off,
		.def = "on",
		.help = "read a file another rank wrote, on another host where there is one",
	},
	[ST_OPT_BIND] = {
		.name = "bind", .arg = "none|core|pu|numa", .type = ST_T_ENUM, .flags = ST_OF_SWEEP,
		.choices = binds,
		.def = "numa",
		.help = "pin each I/O thread (hwloc) to its NUMA node (memory-local, free to "
			"follow the disk's interrupts), a core or a PU",
	},
	[ST_OPT_DATA] = {
		.name = "data", .arg = "PATTERN", .type = ST_T_DATA, .flags = ST_OF_SWEEP,
		.def = "random",
		.help = "bytes written: zero, random (every block unique), compress:PCT (each "
			"--compress-chunk, unset the block, PCT % zeros: compresses 100/(100-PCT):1, "
			"as fio's buffer_compress_percentage), dedupe:PCT (PCT % of the --dedupe-unit "
			"units, unset the block, are one duplicate), or compress:PCT+dedupe:PCT",
	},
	[ST_OPT_VERIFY] = {
		.name = "verify", .arg = "on|off", .type = ST_T_ENUM, .choices = on_off,
		.def = "off",
		.help = "check every byte read against the pattern written (run, rank, thread, "
			"offset)",
	},
	[ST_OPT_MOUNT] = {
		.name = "mount", .arg = "SOURCE", .type = ST_T_STRING, .needs = ST_NEEDS_MOUNTER,
		.help = "posix engine: mount SOURCE (server:/export) on --target for every "
			"combination, with its options (root)",
	},
	[ST_OPT_FSTYPE] = {
		.name = "fstype", .arg = "TYPE", .type = ST_T_STRING, .needs = ST_NEEDS_MOUNTER,
		.def = "nfs",
		.help = "file system type for --mount (nfs, nfs4, tmpfs, ...)",
	},
	[ST_OPT_SERVERS] = {
		.name = "servers", .arg = "HOST,...", .type = ST_T_STRING, .flags = ST_OF_LIST,
		.help = "hosts (names or addresses) whose ranks are NFS servers; default: the "
			"target's server",
	},
	[ST_OPT_SERVER_DIR] = {
		.name = "server-dir", .arg = "DIR", .type = ST_T_STRING,
		.help = "the exported directory as the server host sees it (disk baseline)",
	},
	[ST_OPT_BASELINE] = {
		.name = "baseline", .arg = "on|off", .type = ST_T_ENUM, .choices = on_off,
		.def = "on",
		.help = "measure network (each client to each server, alone and all at once) and "
			"the server's disk before the sweep, when there are server ranks",
	},
	[ST_OPT_BASELINE_TIME] = {
		.name = "baseline-time", .arg = "SECONDS", .type = ST_T_DURATION,
		.min = SEC / 10, .max = 600 * SEC, .unit_ns = SEC, .def = "2",
		.help = "length of each network baseline stream",
	},
	[ST_OPT_BASELINE_SIZE] = {
		.name = "baseline-size", .arg = "SIZE", .type = ST_T_SIZE,
		.min = 1 << 20, .max = 1LL << 40, .align = 1 << 20, .def = "256m",
		.help = "file size of the disk baseline (O_DIRECT, 1m calls)",
	},
	[ST_OPT_SAMPLE_HZ] = {
		.name = "sample-hz", .arg = "N", .type = ST_T_COUNT,
		.min = 1, .max = 1000, .def = "10",
		.help = "server ranks sample CPU, network, disk and the NFS server N times a "
			"second",
	},
	[ST_OPT_SHUFFLE] = {
		.name = "shuffle", .arg = "SEED", .type = ST_T_COUNT,
		.max = INT64_MAX,
		.help = "run the combinations (and iterations) in an order shuffled by SEED, so "
			"drift is not confounded with a factor; the order is stored (combo.seq)",
	},
	[ST_OPT_RESUME] = {
		.name = "resume", .arg = "RUN", .type = ST_T_STRING, .flags = ST_OF_NO_PLAN,
		.help = "continue an interrupted run (id or unique prefix) with its stored "
			"options, skipping the combinations already stored",
	},
	[ST_OPT_PROGRESS] = {
		.name = "progress", .arg = "auto|live|plain|none", .type = ST_T_ENUM,
		.choices = progresses,
		.def = "auto",
		.help = "live: one updating line (combination, phase, elapsed, MB/s, ETA); plain: "
			"a line per finished phase; auto: live on a terminal",
	},
	/* issue 11 (trust) */
	[ST_OPT_BASELINE_STREAMS] = {
		.name = "baseline-streams", .arg = "N", .type = ST_T_COUNT,
		.min = 1, .max = ST_BASELINE_STREAMS_MAX, .def = "4",
		.help = "parallel TCP streams from each client host in the network baseline, one "
			"thread each (as iperf3 -P): one stream on one core is not the link's "
			"limit",
	},
	/* issue 10: the kernel client's mount driver */
	[ST_OPT_MOUNT_OVER] = {
		.name = "mount-over", .type = ST_T_FLAG, .needs = ST_NEEDS_MOUNTER,
		.max = 1,
		.help = "--mount: a --target that is already a mount point is mounted over (it "
			"stays as it is underneath and is back in view at the end); refused "
			"without this",
	},
	[ST_OPT_VERS] = {
		.name = "vers", .arg = "3|4|4.1|4.2", .type = ST_T_ENUM, .flags = NFS,
		.needs = ST_NEEDS_NFS, .choices = verses, .aliases = vers_aliases,
		.help = "NFS protocol version (4.0: 4)",
	},
	[ST_OPT_PROTO] = {
		.name = "proto", .arg = "tcp|udp|rdma", .type = ST_T_ENUM, .flags = NFS,
		.needs = ST_NEEDS_NFS, .choices = protos,
		.help = "NFS transport",
	},
	[ST_OPT_RSIZE] = {
		.name = "rsize", .arg = "SIZE", .type = ST_T_SIZE, .flags = NFS,
		.needs = ST_NEEDS_NFS, .min = 4096, .max = 64LL << 20, .align = 4096,
		.help = "bytes of each NFS READ call (a multiple of 4k)",
	},
	[ST_OPT_WSIZE] = {
		.name = "wsize", .arg = "SIZE", .type = ST_T_SIZE, .flags = NFS,
		.needs = ST_NEEDS_NFS, .min = 4096, .max = 64LL << 20, .align = 4096,
		.help = "bytes of each NFS WRITE call (a multiple of 4k)",
	},
	[ST_OPT_SYNC] = {
		.name = "sync", .arg = "sync|async", .type = ST_T_ENUM, .flags = NFS,
		.needs = ST_NEEDS_NFS, .choices = syncs,
		.help = "libnfs: sync sends FILE_SYNC writes, async UNSTABLE + COMMIT; --mount: "
			"the sync mount option, and the kernel picks each write's stable_how (man "
			"stcluster, WRITES AND --sync)",
	},
	[ST_OPT_HARD] = {
		.name = "hard", .arg = "hard|soft", .type = ST_T_ENUM, .flags = NFS,
		.needs = ST_NEEDS_NFS, .choices = hards,
		.help = "hard: retry until the deadline; soft: fail after timeo x retrans",
	},
	[ST_OPT_TIMEO] = {
		.name = "timeo", .arg = "DECISECONDS", .type = ST_T_COUNT, .flags = NFS,
		.needs = ST_NEEDS_NFS, .min = 1, .max = 36000,
		.help = "NFS call timeout, tenths of a second (as nfs(5))",
	},
	[ST_OPT_RETRANS] = {
		.name = "retrans", .arg = "N", .type = ST_T_COUNT, .flags = NFS,
		.needs = ST_NEEDS_NFS, .max = 1000,
		.help = "NFS retries before a soft call fails",
	},
	[ST_OPT_NCONNECT] = {
		.name = "nconnect", .arg = "N", .type = ST_T_COUNT, .flags = NFS,
		.needs = ST_NEEDS_NFS, .min = 1, .max = ST_NCONNECT_MAX,
		.help = "TCP connections per client",
	},
	[ST_OPT_AC] = {
		.name = "ac", .arg = "ac|noac", .type = ST_T_ENUM, .flags = NFS,
		.needs = ST_NEEDS_NFS, .choices = acs,
		.help = "attribute caching on (ac) or off (noac)",
	},
	[ST_OPT_ACTIMEO] = {
		.name = "actimeo", .arg = "SECONDS", .type = ST_T_COUNT, .flags = NFS,
		.needs = ST_NEEDS_NFS, .max = 3600,
		.help = "attribute cache lifetime, seconds",
	},
	[ST_OPT_IODEPTH] = {
		.name = "iodepth", .arg = "N", .type = ST_T_COUNT, .flags = ST_OF_SWEEP | ST_OF_NFS,
		.min = 1, .max = ST_IODEPTH_MAX,
		.help = "requests each thread keeps in flight (default 1): libnfs: RPC calls; "
			"posix: through io_uring, else libaio (the mode used is stored per "
			"thread)",
	},
	[ST_OPT_MOUNT_OPTS] = {
		.name = "mount-opts", .arg = "OPTS;OPTS", .type = ST_T_STRING,
		.flags = ST_OF_SWEEP, .needs = ST_NEEDS_MOUNTED,
		.sep = ';',
		.help = "--mount: further options as mount -o takes them; ';' separates the "
			"values swept",
	},
	/* issue 13, workloads */
	[ST_OPT_FILES] = {
		.name = "files", .arg = "N", .type = ST_T_COUNT, .flags = ST_OF_SWEEP,
		.min = 1, .max = 100000000,
		.help = "metadata phases: files per thread, in its own directory (mkdir, dirstat, "
			"rmdir: directories; unset: 1000)",
	},
	[ST_OPT_FILE_SIZE] = {
		.name = "file-size", .arg = "SIZE", .type = ST_T_SIZE, .flags = ST_OF_SWEEP,
		.max = 64LL << 20,
		.help = "metadata phases: bytes create writes into each file and open reads back "
			"(unset: 0)",
	},
	[ST_OPT_FANOUT] = {
		.name = "fanout", .arg = "N", .type = ST_T_COUNT, .flags = ST_OF_SWEEP,
		.min = 1, .max = 1000000,
		.help = "metadata phases: subdirectories of each thread's directory (of each "
			"directory of the --depth tree, mdtest -b), the files spread over them "
			"(its leaves) in equal runs (unset: 1, no subdirectory)",
	},
	[ST_OPT_LAYOUT] = {
		.name = "layout", .arg = "file-per-thread|shared", .type = ST_T_ENUM,
		.flags = ST_OF_SWEEP, .choices = layouts,
		.help = "data phases: a file per thread, or one file all threads of all ranks "
			"share, each its own region (IOR -F off; unset: file-per-thread)",
	},
	[ST_OPT_ACCESS] = {
		.name = "access", .arg = "segmented|strided", .type = ST_T_ENUM,
		.flags = ST_OF_SWEEP, .choices = accesses,
		.help = "--layout shared: each thread's region in one piece (segmented, IOR's "
			"default) or its blocks interleaved with the others' (strided; unset: "
			"segmented)",
	},
	[ST_OPT_RWMIX] = {
		.name = "rwmix", .arg = "READ_PCT", .type = ST_T_COUNT, .flags = ST_OF_SWEEP,
		.max = 100,
		.help = "rw, randrw: % of the calls that read, interleaved evenly in each thread "
			"(fio rwmixread; unset: 50)",
	},
	[ST_OPT_RUNTIME] = {
		.name = "runtime", .arg = "SECONDS", .type = ST_T_DURATION, .flags = ST_OF_SWEEP,
		.min = SEC / 10, .max = 7 * 24 * 3600 * SEC, .unit_ns = SEC,
		.help = "data phases run this long (after --ramp), wrapping to the start of the "
			"file (fio time_based); bytes done count (unset: until --size is done); "
			"a read after such a write reads files laid out to --size first, untimed",
	},
	[ST_OPT_RAMP] = {
		.name = "ramp", .arg = "SECONDS", .type = ST_T_DURATION, .flags = ST_OF_SWEEP,
		.max = 24 * 3600 * SEC, .unit_ns = SEC,
		.help = "data phases: calls that start in the first SECONDS are left out of the "
			"figures and the intervals (fio ramp_time)",
	},
	[ST_OPT_STONEWALL] = {
		.name = "stonewall", .arg = "on|off|wearout", .type = ST_T_ENUM,
		.flags = ST_OF_SWEEP, .choices = stonewall_modes,
		.help = "data phases: on: every thread stops when the first client rank has done "
			"its bytes; what was moved by then counts (elbencho's first done); "
			"wearout: with --runtime (IOR's -D, a deadline in seconds), every thread "
			"then goes on until it has made as many calls as the thread of any rank "
			"that had made the most (IOR -O stoneWallingWearOut=1; unset: off)",
	},
	[ST_OPT_RWSIZE] = {
		.name = "rwsize", .arg = "SIZE", .type = ST_T_SIZE,
		.flags = ST_OF_SWEEP, .needs = ST_NEEDS_NFS,
		.min = 4096, .max = 64LL << 20, .align = 4096,
		.help = "rsize and wsize together, one dimension (a multiple of 4k)",
	},
	[ST_OPT_SET] = {
		.name = "set", .arg = "[NAME:]KEY=V,KEY=V", .type = ST_T_STRING, .flags = ST_OF_SWEEP,
		.sep = ';',
		.help = "a named set of sweep option values, swept as one dimension (nfsometer's "
			"option sets): give --set once per set, or ';' between sets; an option a "
			"set names is unset in the sets that do not; NAME (letters, digits, '.', "
			"'_', '-'; default: the set's KEY=V text) is the set's level in the store "
			"and the analyses",
	},
	[ST_OPT_INTERVAL] = {
		.name = "interval", .arg = "DURATION", .type = ST_T_DURATION,
		.min = 10 * (SEC / 1000), .max = 3600 * SEC, .unit_ns = SEC / 1000, .def = "100ms",
		.help = "width of the throughput-over-time intervals (plain number: ms); a thread "
			"keeps 600, widening them ten times when a phase outgrows them",
	},
	[ST_OPT_KEEP] = {
		.name = "keep", .arg = "on|off", .type = ST_T_ENUM, .choices = on_off,
		.def = "off",
		.help = "leave the files: each combination's in stcluster-<run id>/c<seq>/ (IOR "
			"-k)",
	},
	[ST_OPT_NULL_DELAY_STEP] = {
		.name = "null-delay-step", .arg = "DURATION", .type = ST_T_DURATION,
		.needs = ST_NEEDS_SIM, .max = 10 * SEC, .unit_ns = 1000, .def = "0",
		.help = "null engine: rank r's calls take --null-delay + r x this (plain number: "
			"us)",
	},
	[ST_OPT_NULL_SURFACE] = {
		.name = "null-surface", .arg = "FILE", .type = ST_T_STRING, .needs = ST_NEEDS_SIM,
		.help = "null engine: each call's delay from a response surface in place of "
			"--null-delay (base, a factor per option value or pair, noise with a "
			"seed: README, 'Planted surfaces'); every rank reads FILE",
	},
	/* issue 21: the result for a program, as fio --output */
	[ST_OPT_OUTPUT] = {
		.name = "output", .arg = "FILE", .type = ST_T_STRING,
		.help = "when the run ends, write its report into FILE, a new file (one that exists is "
			"refused), in --output-format, even with --quiet (fio --output)",
	},
	[ST_OPT_OUTPUT_FORMAT] = {
		.name = "output-format", .arg = "table|csv|json|markdown", .type = ST_T_ENUM,
		.choices = out_formats, .def = "table",
		.help = "the format of --output: json is `stcluster report --format json`'s document "
			"(sql/schema.json)",
	},
	[ST_OPT_SEARCH] = {
		.name = "search", .arg = "full|halving", .type = ST_T_ENUM, .choices = searches,
		.def = "full",
		.help = "full: every combination, --iterations times; halving: every combination "
			"short once (stage 0), then the best third again, 3 times longer, until at most "
			"3 remain, measured at full length --iterations times (at least 3); "
			"--dry-run prints the stages",
	},
	[ST_OPT_BUDGET] = {
		.name = "budget", .arg = "DURATION|N", .type = ST_T_STRING,
		.help = "--search halving: stop when this much wall time (20m, 1h; a unit is "
			"required) or N combination-runs (a plain number; each measurement of a "
			"combination, short or long, is one) is spent; unset: the stages' plan",
	},
	[ST_OPT_DEDUPE_UNIT] = {
		.name = "dedupe-unit", .arg = "SIZE", .type = ST_T_SIZE,
		.min = 8, .max = 1LL << 30, .align = 8,
		.help = "--data dedupe:P: the unit P % of which are duplicates, as a dedupe "
			"that works in these units sees them (fio dedupe; unset: the block)",
	},
	[ST_OPT_COMPRESS_CHUNK] = {
		.name = "compress-chunk", .arg = "SIZE", .type = ST_T_SIZE,
		.min = 8, .max = 1LL << 30, .align = 8,
		.help = "--data compress:P: the chunk whose last P % are zeros (fio "
			"buffer_compress_chunk; unset: the block)",
	},
	/* issue 20, mdtest's directory workloads */
	[ST_OPT_DIR_MODE] = {
		.name = "dir-mode", .arg = "unique|shared", .type = ST_T_ENUM,
		.flags = ST_OF_SWEEP, .choices = dir_modes,
		.help = "metadata phases: unique: each thread its own directory; shared: every "
			"thread of every rank in one directory, its files named by rank and "
			"thread (mdtest's default, without -u; unset: unique)",
	},
	[ST_OPT_DEPTH] = {
		.name = "depth", .arg = "N", .type = ST_T_COUNT, .flags = ST_OF_SWEEP,
		.max = ST_META_DEPTH_MAX,
		.help = "metadata phases: levels of the tree below each directory, --fanout "
			"subdirectories in each (mdtest -z, -b), the files spread over its "
			"leaves alone in equal runs (0: all in the directory; unset: 1 with "
			"--fanout > 1, else 0)",
	},
	/* issue 23: server options as dimensions */
	[ST_OPT_SERVER_THREADS] = {
		.name = "server-threads", .arg = "N", .type = ST_T_COUNT,
		.flags = ST_OF_SWEEP | ST_OF_SERVER, .min = 1, .max = ST_NFSD_THREADS_MAX,
		.help = "each server rank on a kernel NFS server (knfsd, root) sets its nfsd threads "
			"(/proc/fs/nfsd/threads) before the clients mount; the count read back is "
			"stored, the server's own restored at the end",
	},
	[ST_OPT_SERVER_EXPORT] = {
		.name = "server-export", .arg = "OPTS;OPTS", .type = ST_T_STRING,
		.flags = ST_OF_SWEEP | ST_OF_SERVER, .sep = ';',
		.help = "each knfsd server rank re-exports the export the clients use with these "
			"exportfs -o options (sync, async, no_wdelay, ...) over its own, before the "
			"clients mount; the options exportfs -v shows are stored, the server's own "
			"restored at the end; ';' separates the values swept",
	},
};
