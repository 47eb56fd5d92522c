/*
 * options.c - the options table and everything driven by it (see options.h).
 */
#include "options.h"

#include "data.h"
#include "units.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The words of each choice option, at the index its enum gives (options.h). */
static const char *const on_off[] = { [ST_OFF] = "off", [ST_ON] = "on", [ST_ON_OFF_COUNT] = NULL };
static const char *const engines[] = { [ST_ENGINE_POSIX] = "posix", [ST_ENGINE_NULL] = "null",
				       [ST_ENGINE_LIBNFS] = "libnfs", [ST_ENGINE_COUNT] = NULL };
static const char *const binds[] = { [ST_BIND_NONE] = "none", [ST_BIND_CORE] = "core",
				     [ST_BIND_PU] = "pu", [ST_BIND_NUMA] = "numa",
				     [ST_BIND_COUNT] = NULL };
static const char *const layouts[] = { [ST_LAYOUT_FPT] = "file-per-thread",
				       [ST_LAYOUT_SHARED] = "shared", [ST_LAYOUT_COUNT] = NULL };
static const char *const accesses[] = { [ST_ACCESS_SEGMENTED] = "segmented",
					[ST_ACCESS_STRIDED] = "strided", [ST_ACCESS_COUNT] = NULL };
static const char *const verses[] = { [ST_VERS_3] = "3", [ST_VERS_4] = "4", [ST_VERS_4_1] = "4.1",
				      [ST_VERS_4_2] = "4.2", [ST_VERS_COUNT] = NULL };
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
const char *const st_phase_names[ST_PHASE_COUNT + 1] = {
	[ST_PHASE_WRITE] = "write",	  [ST_PHASE_REWRITE] = "rewrite",
	[ST_PHASE_READ] = "read",	  [ST_PHASE_REREAD] = "reread",
	[ST_PHASE_RANDREAD] = "randread", [ST_PHASE_RANDWRITE] = "randwrite",
	[ST_PHASE_RW] = "rw",		  [ST_PHASE_RANDRW] = "randrw",
	[ST_PHASE_CREATE] = "create",	  [ST_PHASE_STAT] = "stat",
	[ST_PHASE_OPEN] = "open",	  [ST_PHASE_REMOVE] = "remove",
	[ST_PHASE_COUNT] = NULL,
};

/* A word added to a list without its enum value (or the other way round)
 * changes the list's length: the build stops here. A hole (a value without
 * its word) ends the list early: test_options finds that one. */
#define ST_CHOICES(list, count) \
	_Static_assert(ST_ARRAY_LEN(list) == (count) + 1, #list " does not match its enum")
ST_CHOICES(on_off, ST_ON_OFF_COUNT);
ST_CHOICES(engines, ST_ENGINE_COUNT);
ST_CHOICES(binds, ST_BIND_COUNT);
ST_CHOICES(layouts, ST_LAYOUT_COUNT);
ST_CHOICES(accesses, ST_ACCESS_COUNT);
ST_CHOICES(verses, ST_VERS_COUNT);
ST_CHOICES(protos, ST_PROTO_COUNT);
ST_CHOICES(syncs, ST_SYNC_COUNT);
ST_CHOICES(hards, ST_HARD_COUNT);
ST_CHOICES(acs, ST_AC_COUNT);
ST_CHOICES(progresses, ST_PROGRESS_COUNT);
_Static_assert(ST_ARRAY_LEN(st_phase_names) == ST_PHASE_COUNT + 1, "st_phase_names");

#define SEC 1000000000LL

#define NFS (ST_OF_SWEEP | ST_OF_NFS | ST_OF_MOUNT)

const struct st_opt_def st_options[ST_OPT_COUNT] = {
	[ST_OPT_TARGET] = { "target", "DIR|URL", ST_T_STRING, 0, NULL, 0, 0, 0, 0, 0, NULL,
			    "directory (posix) or nfs://server/export/dir URL (libnfs) to test; each run works in stcluster-<run id>/ under it" },
	[ST_OPT_ENGINE] = { "engine", "NAME", ST_T_ENUM, 0, engines, 0, 0, 0, 0, 0, "posix",
			    "I/O engine: posix (files under --target), libnfs (nfs:// URL, userspace NFS client) or null (no I/O, for tests)" },
	[ST_OPT_PHASES] = { "phases", "LIST", ST_T_ENUM, ST_OF_LIST, st_phase_names, 0, 0, 0, 0, 0,
			    "write,read",
			    "phases to run, always in the order write,rewrite,read,reread,randread,randwrite "
			    "(data), rw,randrw (mixed, --rwmix), create,stat,open,remove (metadata, --files)" },
	[ST_OPT_ITERATIONS] = { "iterations", "N", ST_T_COUNT, 0, NULL, 1, 1000, 0, 0, 0, "1",
				"repeat every combination N times" },
	[ST_OPT_DEADLINE] = { "deadline", "SECONDS", ST_T_DURATION, 0, NULL, SEC / 1000,
			      7 * 24 * 3600 * SEC, SEC, 0, 0, "3600",
			      "a phase stops issuing I/O after this long (recorded as ETIMEDOUT)" },
	[ST_OPT_DB] = { "db", "PATH", ST_T_STRING, 0, NULL, 0, 0, 0, 0, 0, "./stcluster.db",
			"SQLite store (created if missing; every run is added to it)" },
	[ST_OPT_LABEL] = { "label", "TEXT", ST_T_STRING, 0, NULL, 0, 0, 0, 0, 0, "",
			   "free text stored with the run" },
	[ST_OPT_SEED] = { "seed", "N", ST_T_COUNT, 0, NULL, 0, INT64_MAX, 0, 0, 0, "1",
			  "seed of the random block order and random data" },
	[ST_OPT_NULL_DELAY] = { "null-delay", "DURATION", ST_T_DURATION, 0, NULL, 0, 10 * SEC,
				1000, 0, 0, "0", "null engine: time each read/write takes (plain number: us)" },
	[ST_OPT_NULL_ERROR] = { "null-error", "ERRNO", ST_T_ERRNO, 0, NULL, 0, 0, 0, 0, 0, NULL,
				"null engine: errno (name or number) to inject" },
	[ST_OPT_NULL_ERROR_AT] = { "null-error-at", "N", ST_T_COUNT, 0, NULL, 0, INT64_MAX, 0, 0, 0,
				   "0", "null engine: the Nth read/write of each thread fails (0-based)" },
	[ST_OPT_NULL_FAIL_SETUP] = { "null-fail-setup", "RANK", ST_T_COUNT, 0, NULL, 0, 1 << 20, 0, 0, 0,
				     NULL, "null engine: preparation fails on this rank (EIO)" },
	[ST_OPT_PLAN] = { "plan", "FILE", ST_T_STRING, ST_OF_NO_PLAN, NULL, 0, 0, 0, 0, 0, NULL,
			  "read options from FILE (key = v1,v2 lines); the command line wins" },
	[ST_OPT_DRY_RUN] = { "dry-run", NULL, ST_T_FLAG, 0, NULL, 0, 1, 0, 0, 0, NULL,
			     "print the number of combinations and each one, then exit" },
	[ST_OPT_QUIET] = { "quiet", NULL, ST_T_FLAG, 0, NULL, 0, 1, 0, 0, 0, NULL,
			   "print nothing but errors while running" },
	[ST_OPT_BLOCK] = { "block", "SIZE", ST_T_SIZE, ST_OF_SWEEP, NULL, 1, 1LL << 30, 0, 0, 0, "1m",
			   "transfer size of each read/write call" },
	[ST_OPT_SIZE] = { "size", "SIZE", ST_T_SIZE, ST_OF_SWEEP, NULL, 1, 1LL << 50, 0, 0, 0, "64m",
			  "bytes per thread (each thread has its own file)" },
	[ST_OPT_THREADS] = { "threads", "N", ST_T_COUNT, ST_OF_SWEEP, NULL, 1, 256, 0, 0, 0, "1",
			     "I/O threads per client rank" },
	[ST_OPT_DIRECT] = { "direct", "on|off", ST_T_ENUM, ST_OF_SWEEP, on_off, 0, 0, 0, 0, 0, "on",
			    "O_DIRECT (falls back to buffered where refused, and records it)" },
	[ST_OPT_FSYNC] = { "fsync", "on|off", ST_T_ENUM, ST_OF_SWEEP, on_off, 0, 0, 0, 0, 0, "on",
			   "fsync before close inside the timed write phases (iozone -e)" },
	[ST_OPT_REORDER] = { "reorder", "on|off", ST_T_ENUM, ST_OF_SWEEP, on_off, 0, 0, 0, 0, 0, "on",
			     "read a file another rank wrote, on another host where there is one" },
	[ST_OPT_BIND] = { "bind", "none|core|pu|numa", ST_T_ENUM, ST_OF_SWEEP, binds, 0, 0, 0, 0, 0,
			  "numa", "pin each I/O thread (hwloc) to its NUMA node (memory-local, free to follow the disk's interrupts), a core or a PU" },
	[ST_OPT_DATA] = { "data", "PATTERN", ST_T_DATA, ST_OF_SWEEP, NULL, 0, 0, 0, 0, 0, "random",
			  "bytes written: zero, random (every block unique), compress:PCT (each 4k "
			  "chunk PCT % zeros: compresses 100/(100-PCT):1, as fio's "
			  "buffer_compress_percentage), dedupe:PCT (PCT % of the 4k chunks are one "
			  "duplicate), or compress:PCT+dedupe:PCT" },
	[ST_OPT_VERIFY] = { "verify", "on|off", ST_T_ENUM, 0, on_off, 0, 0, 0, 0, 0, "off",
			    "check every byte read against the pattern written (run, rank, thread, offset)" },
	[ST_OPT_MOUNT] = { "mount", "SOURCE", ST_T_STRING, 0, NULL, 0, 0, 0, 0, 0, NULL,
			   "posix engine: mount SOURCE (server:/export) on --target for every combination, "
			   "with its options (root)" },
	[ST_OPT_FSTYPE] = { "fstype", "TYPE", ST_T_STRING, 0, NULL, 0, 0, 0, 0, 0, "nfs",
			    "file system type for --mount (nfs, nfs4, tmpfs, ...)" },
	[ST_OPT_SERVERS] = { "servers", "HOST,...", ST_T_STRING, ST_OF_LIST, NULL, 0, 0, 0, 0, 0, NULL,
			     "hosts (names or addresses) whose ranks are NFS servers; default: the "
			     "target's server" },
	[ST_OPT_SERVER_DIR] = { "server-dir", "DIR", ST_T_STRING, 0, NULL, 0, 0, 0, 0, 0, NULL,
				"the exported directory as the server host sees it (disk baseline)" },
	[ST_OPT_BASELINE] = { "baseline", "on|off", ST_T_ENUM, 0, on_off, 0, 0, 0, 0, 0, "on",
			      "measure network (each client to each server, alone and all at once) "
			      "and the server's disk before the sweep, when there are server ranks" },
	[ST_OPT_BASELINE_TIME] = { "baseline-time", "SECONDS", ST_T_DURATION, 0, NULL, SEC / 10,
				   600 * SEC, SEC, 0, 0, "2", "length of each network baseline stream" },
	[ST_OPT_BASELINE_SIZE] = { "baseline-size", "SIZE", ST_T_SIZE, 0, NULL, 1 << 20, 1LL << 40,
				   0, 1 << 20, 0, "256m", "file size of the disk baseline (O_DIRECT, 1m calls)" },
	[ST_OPT_SAMPLE_HZ] = { "sample-hz", "N", ST_T_COUNT, 0, NULL, 1, 1000, 0, 0, 0, "10",
			       "server ranks sample CPU, network, disk and the NFS server N times a second" },
	[ST_OPT_SHUFFLE] = { "shuffle", "SEED", ST_T_COUNT, 0, NULL, 0, INT64_MAX, 0, 0, 0, NULL,
			     "run the combinations (and iterations) in an order shuffled by SEED, so "
			     "drift is not confounded with a factor; the order is stored (combo.seq)" },
	[ST_OPT_RESUME] = { "resume", "RUN", ST_T_STRING, ST_OF_NO_PLAN, NULL, 0, 0, 0, 0, 0, NULL,
			    "continue an interrupted run (id or unique prefix) with its stored options, "
			    "skipping the combinations already stored" },
	[ST_OPT_PROGRESS] = { "progress", "auto|live|plain|none", ST_T_ENUM, 0, progresses, 0, 0, 0,
			      0, 0, "auto",
			      "live: one updating line (combination, phase, elapsed, MB/s, ETA); plain: a "
			      "line per finished phase; auto: live on a terminal" },
	/* issue 11 (trust) */
	[ST_OPT_BASELINE_STREAMS] = { "baseline-streams", "N", ST_T_COUNT, 0, NULL, 1, 64, 0, 0, 0, "4",
				      "parallel TCP streams from each client host in the network baseline, "
				      "one thread each (as iperf3 -P): one stream on one core is not the "
				      "link's limit" },
	/* issue 10: the kernel client's mount driver */
	[ST_OPT_MOUNT_OVER] = { "mount-over", NULL, ST_T_FLAG, 0, NULL, 0, 1, 0, 0, 0, NULL,
				"--mount: a --target that is already a mount point is mounted over (it "
				"stays as it is underneath and is back in view at the end); refused "
				"without this" },
	[ST_OPT_VERS] = { "vers", "3|4|4.1|4.2", ST_T_ENUM, NFS, verses, 0, 0, 0, 0, 0, NULL,
			  "NFS protocol version" },
	[ST_OPT_PROTO] = { "proto", "tcp|udp|rdma", ST_T_ENUM, NFS, protos, 0, 0, 0, 0, 0, NULL,
			   "NFS transport" },
	[ST_OPT_RSIZE] = { "rsize", "SIZE", ST_T_SIZE, NFS, NULL, 4096, 64LL << 20, 0, 4096, 0, NULL,
			   "bytes of each NFS READ call (a multiple of 4k)" },
	[ST_OPT_WSIZE] = { "wsize", "SIZE", ST_T_SIZE, NFS, NULL, 4096, 64LL << 20, 0, 4096, 0, NULL,
			   "bytes of each NFS WRITE call (a multiple of 4k)" },
	[ST_OPT_SYNC] = { "sync", "sync|async", ST_T_ENUM, NFS, syncs, 0, 0, 0, 0, 0, NULL,
			  "libnfs: sync sends FILE_SYNC writes, async UNSTABLE + COMMIT; --mount: the "
			  "sync mount option, and the kernel picks each write's stable_how (man "
			  "stcluster, WRITES AND --sync)" },
	[ST_OPT_HARD] = { "hard", "hard|soft", ST_T_ENUM, NFS, hards, 0, 0, 0, 0, 0, NULL,
			  "hard: retry until the deadline; soft: fail after timeo x retrans" },
	[ST_OPT_TIMEO] = { "timeo", "DECISECONDS", ST_T_COUNT, NFS, NULL, 1, 36000, 0, 0, 0, NULL,
			   "NFS call timeout, tenths of a second (as nfs(5))" },
	[ST_OPT_RETRANS] = { "retrans", "N", ST_T_COUNT, NFS, NULL, 0, 1000, 0, 0, 0, NULL,
			     "NFS retries before a soft call fails" },
	[ST_OPT_NCONNECT] = { "nconnect", "N", ST_T_COUNT, NFS, NULL, 1, 16, 0, 0, 0, NULL,
			      "TCP connections per client" },
	[ST_OPT_AC] = { "ac", "ac|noac", ST_T_ENUM, NFS, acs, 0, 0, 0, 0, 0, NULL,
			"attribute caching on (ac) or off (noac)" },
	[ST_OPT_ACTIMEO] = { "actimeo", "SECONDS", ST_T_COUNT, NFS, NULL, 0, 3600, 0, 0, 0, NULL,
			     "attribute cache lifetime, seconds" },
	[ST_OPT_IODEPTH] = { "iodepth", "N", ST_T_COUNT, ST_OF_SWEEP | ST_OF_NFS, NULL, 1, 256, 0, 0,
			     0, NULL, "requests each thread keeps in flight (default 1): libnfs: RPC calls; "
				      "posix: through io_uring, else libaio (the mode used is stored per thread)" },
	[ST_OPT_MOUNT_OPTS] = { "mount-opts", "OPTS;OPTS", ST_T_STRING,
				ST_OF_SWEEP | ST_OF_MOUNT, NULL, 0, 0, 0, 0, ';', NULL,
				"--mount: further options as mount -o takes them; ';' separates the values swept" },
	/* issue 13, workloads */
	[ST_OPT_FILES] = { "files", "N", ST_T_COUNT, ST_OF_SWEEP, NULL, 1, 100000000, 0, 0, 0, NULL,
			   "metadata phases: files per thread, in its own directory (unset: 1000)" },
	[ST_OPT_FILE_SIZE] = { "file-size", "SIZE", ST_T_SIZE, ST_OF_SWEEP, NULL, 0, 64LL << 20, 0,
			       0, 0, NULL,
			       "metadata phases: bytes create writes into each file and open reads "
			       "back (unset: 0)" },
	[ST_OPT_FANOUT] = { "fanout", "N", ST_T_COUNT, ST_OF_SWEEP, NULL, 1, 1000000, 0, 0, 0, NULL,
			    "metadata phases: subdirectories of each thread's directory, the files "
			    "spread over them in equal runs (mdtest -I; unset: 1, no subdirectory)" },
	[ST_OPT_LAYOUT] = { "layout", "file-per-thread|shared", ST_T_ENUM, ST_OF_SWEEP, layouts, 0,
			    0, 0, 0, 0, NULL,
			    "data phases: a file per thread, or one file all threads of all ranks "
			    "share, each its own region (IOR -F off; unset: file-per-thread)" },
	[ST_OPT_ACCESS] = { "access", "segmented|strided", ST_T_ENUM, ST_OF_SWEEP, accesses, 0, 0,
			    0, 0, 0, NULL,
			    "--layout shared: each thread's region in one piece (segmented, IOR's "
			    "default) or its blocks interleaved with the others' (strided; unset: "
			    "segmented)" },
	[ST_OPT_RWMIX] = { "rwmix", "READ_PCT", ST_T_COUNT, ST_OF_SWEEP, NULL, 0, 100, 0, 0, 0, NULL,
			   "rw, randrw: % of the calls that read, interleaved evenly in each thread "
			   "(fio rwmixread; unset: 50)" },
	[ST_OPT_RUNTIME] = { "runtime", "SECONDS", ST_T_DURATION, ST_OF_SWEEP, NULL, SEC / 10,
			     7 * 24 * 3600 * SEC, SEC, 0, 0, NULL,
			     "data phases run this long (after --ramp), wrapping to the start of the "
			     "file (fio time_based); bytes done count (unset: until --size is done)" },
	[ST_OPT_RAMP] = { "ramp", "SECONDS", ST_T_DURATION, ST_OF_SWEEP, NULL, 0, 24 * 3600 * SEC, SEC,
			  0, 0, NULL,
			  "data phases: calls that start in the first SECONDS are left out of the "
			  "figures and the intervals (fio ramp_time)" },
	[ST_OPT_STONEWALL] = { "stonewall", "on|off", ST_T_ENUM, ST_OF_SWEEP, on_off, 0, 0, 0, 0, 0,
			       NULL,
			       "data phases: every thread stops when the first client rank has done "
			       "its bytes; what was moved by then counts (IOR -D, elbencho's first "
			       "done; unset: off)" },
	[ST_OPT_RWSIZE] = { "rwsize", "SIZE", ST_T_SIZE, ST_OF_SWEEP | ST_OF_MOUNT, NULL, 4096,
			    64LL << 20, 0, 4096, 0, NULL,
			    "rsize and wsize together, one dimension (a multiple of 4k)" },
	[ST_OPT_SET] = { "set", "KEY=V,KEY=V", ST_T_STRING, ST_OF_SWEEP, NULL, 0, 0, 0, 0, ';', NULL,
			 "a named set of sweep option values, swept as one dimension (nfsometer's "
			 "option sets): give --set once per set, or ';' between sets; an option a set "
			 "names is unset in the sets that do not" },
	[ST_OPT_INTERVAL] = { "interval", "DURATION", ST_T_DURATION, 0, NULL, 10 * (SEC / 1000),
			      3600 * SEC, SEC / 1000, 0, 0, "100ms",
			      "width of the throughput-over-time intervals (plain number: ms); a "
			      "thread keeps 600, widening them ten times when a phase outgrows them" },
	[ST_OPT_KEEP] = { "keep", "on|off", ST_T_ENUM, 0, on_off, 0, 0, 0, 0, 0, "off",
			  "leave the files: each combination's in stcluster-<run id>/c<seq>/ (IOR -k)" },
	[ST_OPT_NULL_DELAY_STEP] = { "null-delay-step", "DURATION", ST_T_DURATION, 0, NULL, 0,
				     10 * SEC, 1000, 0, 0, "0",
				     "null engine: rank r's calls take --null-delay + r x this "
				     "(plain number: us)" },
};

int st_opt_find(const char *name)
{
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if (strcmp(st_options[i].name, name) == 0)
			return i;
	return -1;
}

static int is_list(const struct st_opt_def *d)
{
	return (d->flags & (ST_OF_SWEEP | ST_OF_LIST)) != 0;
}

static int fail(char *err, size_t n, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t n, const char *where, const char *fmt, ...)
{
	size_t off = 0;
	if (where) {
		snprintf(err, n, "%s: ", where);
		off = strlen(err);
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err + off, n - off, fmt, ap);
	va_end(ap);
	return -1;
}

/* Parse one element of option d's value. */
static int parse_one(const struct st_opt_def *d, const char *s, int64_t *v, char *err,
		     size_t n, const char *where)
{
	const char *why = "invalid";
	int rc = 0;
	switch (d->type) {
	case ST_T_SIZE:
		rc = st_parse_size(s, v, &why);
		if (rc)
			return fail(err, n, where, "--%s: invalid size '%s' (%s)", d->name, s, why);
		break;
	case ST_T_COUNT:
		rc = st_parse_count(s, v, &why);
		if (rc)
			return fail(err, n, where, "--%s: invalid number '%s' (%s)", d->name, s, why);
		break;
	case ST_T_DURATION:
		rc = st_parse_duration(s, d->unit_ns, v, &why);
		if (rc)
			return fail(err, n, where, "--%s: invalid duration '%s' (%s)", d->name, s,
				    why);
		break;
	case ST_T_DATA:
		if (st_data_parse(s, v, &why))
			return fail(err, n, where, "--%s: invalid pattern '%s' (%s)", d->name, s, why);
		return 0;
	case ST_T_ERRNO: {
		int e;
		if (st_errno_parse(s, &e))
			return fail(err, n, where, "--%s: unknown errno '%s' (use a name like EIO)",
				    d->name, s);
		*v = e;
		return 0;
	}
	case ST_T_ENUM:
		for (int i = 0; d->choices[i]; i++)
			if (strcmp(d->choices[i], s) == 0) {
				*v = i;
				return 0;
			}
		{
			char allowed[256] = "";
			for (int i = 0; d->choices[i]; i++) {
				if (i)
					strncat(allowed, ", ", sizeof(allowed) - strlen(allowed) - 1);
				strncat(allowed, d->choices[i], sizeof(allowed) - strlen(allowed) - 1);
			}
			return fail(err, n, where, "--%s: unknown value '%s' (one of: %s)", d->name, s,
				    allowed);
		}
	default:
		return fail(err, n, where, "--%s: internal: no parser", d->name);
	}
	if (d->align && *v % d->align) {
		char a[32];
		st_format_size(d->align, a, sizeof(a));
		return fail(err, n, where, "--%s: '%s' is not a multiple of %s", d->name, s, a);
	}
	if (d->max > d->min && (*v < d->min || *v > d->max)) {
		char lo[32], hi[32];
		if (d->type == ST_T_SIZE) {
			st_format_size(d->min, lo, sizeof(lo));
			st_format_size(d->max, hi, sizeof(hi));
		} else if (d->type == ST_T_DURATION) {
			st_format_duration(d->min, lo, sizeof(lo));
			st_format_duration(d->max, hi, sizeof(hi));
		} else {
			snprintf(lo, sizeof(lo), "%lld", (long long)d->min);
			snprintf(hi, sizeof(hi), "%lld", (long long)d->max);
		}
		return fail(err, n, where, "--%s: '%s' is out of range (%s to %s)", d->name, s, lo,
			    hi);
	}
	return 0;
}

/*
 * One --set: "key=value,key=value", each key a sweep option (not set,
 * not a text one) given once, each value one value its own parser takes.
 * vals[id] gets each value (ST_UNSET for the keys not named). 0, or -1
 * with one line in err.
 */
static int set_parse(const char *text, int64_t vals[ST_OPT_COUNT], char *err, size_t errn,
		     const char *where)
{
	for (int i = 0; i < ST_OPT_COUNT; i++)
		vals[i] = ST_UNSET;
	for (const char *p = text;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char pair[256], why[ST_ERR_MAX];
		if (len == 0 || len >= sizeof(pair))
			return fail(err, errn, where, "--set '%s': %s", text,
				    len ? "a value is too long" : "empty element (KEY=V,KEY=V)");
		memcpy(pair, p, len);
		pair[len] = '\0';
		char *eq = strchr(pair, '=');
		if (!eq || eq == pair || !eq[1])
			return fail(err, errn, where, "--set '%s': '%s' is not KEY=VALUE", text, pair);
		*eq = '\0';
		/* a plan file may put spaces around the words */
		char *key = pair, *val = eq + 1;
		while (isspace((unsigned char)*key))
			key++;
		for (char *e = eq; e > key && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		while (isspace((unsigned char)*val))
			val++;
		for (char *e = val + strlen(val); e > val && isspace((unsigned char)e[-1]);)
			*--e = '\0';
		int id = st_opt_find(key);
		if (id < 0 || !(st_options[id].flags & ST_OF_SWEEP) || id == ST_OPT_SET ||
		    st_options[id].type == ST_T_STRING)
			return fail(err, errn, where,
				    "--set '%s': '%s' is not an option a set can give (a sweep option "
				    "with one value: block, vers, rsize, ...)",
				    text, key);
		if (vals[id] != ST_UNSET)
			return fail(err, errn, where, "--set '%s': '%s' is given twice", text, key);
		if (parse_one(&st_options[id], val, &vals[id], why, sizeof(why), NULL))
			return fail(err, errn, where, "--set '%s': %s", text, why);
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

int st_config_set(struct st_config *cfg, int id, const char *text, int from_args,
		  const char *where, char *err, size_t errn)
{
	const struct st_opt_def *d = &st_options[id];
	struct st_optval *ov = &cfg->o[id];
	if (!from_args && ov->from_args)
		return 0; /* the command line wins over the plan */
	if (d->type == ST_T_FLAG) {
		ov->n = 1;
		ov->v[0] = 1;
		ov->from_args = from_args;
		return 0;
	}
	if (d->type == ST_T_STRING) {
		/* a run stores its options as plan text, a line per option with
		 * the spaces at both ends trimmed: text it cannot keep is refused */
		size_t len = strlen(text);
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
				return fail(err, errn, where, "--%s: control character 0x%02x in the value",
					    d->name, (unsigned)(unsigned char)text[i]);
		if (len && (text[0] == ' ' || text[len - 1] == ' '))
			return fail(err, errn, where, "--%s: value '%s' begins or ends with a space",
				    d->name, text);
	}
	if (d->type == ST_T_STRING && is_list(d)) {
		struct st_optval nv = { 0 };
		size_t off = 0;
		char sep = d->sep ? d->sep : ',';
		for (const char *p = text;;) {
			const char *end = strchr(p, sep);
			size_t len = end ? (size_t)(end - p) : strlen(p);
			if (len == 0)
				return fail(err, errn, where, "--%s: empty element in list '%s'", d->name,
					    text);
			if (off + len + 1 > sizeof(nv.s) || nv.n == ST_MAX_VALUES)
				return fail(err, errn, where, "--%s: list is too long", d->name);
			for (int i = 0; i < nv.n; i++)
				if (strlen(nv.s + nv.v[i]) == len && !memcmp(nv.s + nv.v[i], p, len))
					return fail(err, errn, where, "--%s: value '%.*s' is listed twice",
						    d->name, (int)len, p);
			memcpy(nv.s + off, p, len);
			nv.s[off + len] = '\0';
			nv.v[nv.n++] = (int64_t)off;
			off += len + 1;
			if (!end)
				break;
			p = end + 1;
		}
		for (int i = 0; id == ST_OPT_SET && i < nv.n; i++) {
			int64_t vals[ST_OPT_COUNT];
			if (set_parse(st_optval_str(&nv, i), vals, err, errn, where))
				return -1;
		}
		nv.from_args = from_args;
		*ov = nv;
		return 0;
	}
	if (d->type == ST_T_STRING) {
		if (strlen(text) >= sizeof(ov->s))
			return fail(err, errn, where, "--%s: value is longer than %zu bytes", d->name,
				    sizeof(ov->s) - 1);
		if (id != ST_OPT_LABEL && !*text)
			return fail(err, errn, where, "--%s: empty value", d->name);
		st_copy(ov->s, sizeof(ov->s), text);
		ov->n = 1;
		ov->from_args = from_args;
		return 0;
	}
	struct st_optval nv = { 0 };
	const char *p = text;
	for (;;) {
		const char *comma = is_list(d) ? strchr(p, ',') : NULL;
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char elem[128];
		if (len == 0)
			return fail(err, errn, where, "--%s: empty element in list '%s'", d->name,
				    text);
		if (len >= sizeof(elem))
			return fail(err, errn, where, "--%s: value '%.40s...' is too long", d->name, p);
		memcpy(elem, p, len);
		elem[len] = '\0';
		if (nv.n == ST_MAX_VALUES)
			return fail(err, errn, where, "--%s: more than %d values", d->name,
				    ST_MAX_VALUES);
		int64_t v;
		if (parse_one(d, elem, &v, err, errn, where))
			return -1;
		for (int i = 0; i < nv.n; i++)
			if (nv.v[i] == v)
				return fail(err, errn, where, "--%s: value '%s' is listed twice", d->name,
					    elem);
		nv.v[nv.n++] = v;
		if (!comma)
			break;
		p = comma + 1;
	}
	nv.from_args = from_args;
	*ov = nv;
	return 0;
}

void st_config_defaults(struct st_config *cfg)
{
	char err[ST_ERR_MAX];
	memset(cfg, 0, sizeof(*cfg));
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!st_options[i].def ||
		    !st_config_set(cfg, i, st_options[i].def, 0, NULL, err, sizeof(err)))
			continue;
		/* a bug in the table, not in the user's input (test_options runs this) */
		fprintf(stderr, "stcluster: internal: bad default for --%s: %s\n", st_options[i].name,
			err);
		abort();
	}
}

int st_config_parse_args(struct st_config *cfg, int argc, char **argv, char *err,
			 size_t errn)
{
	unsigned char given[ST_OPT_COUNT] = { 0 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--", 2) != 0 || !a[2])
			return fail(err, errn, NULL, "unexpected argument '%s' (options start with --)",
				    a);
		char name[64];
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		if (len >= sizeof(name))
			return fail(err, errn, NULL, "unknown option '%.60s'", a);
		memcpy(name, a + 2, len);
		name[len] = '\0';
		int id = st_opt_find(name);
		if (id < 0)
			return fail(err, errn, NULL, "unknown option '--%s' (see --help)", name);
		if (given[id]++ && id != ST_OPT_SET)
			return fail(err, errn, NULL, "--%s: given twice (give it once%s)", name,
				    is_list(&st_options[id]) ? ", with a list: a,b" : "");
		const char *val;
		if (st_options[id].type == ST_T_FLAG) {
			if (eq)
				return fail(err, errn, NULL, "--%s takes no value", name);
			val = "";
		} else if (eq) {
			val = eq + 1;
		} else {
			if (i + 1 >= argc)
				return fail(err, errn, NULL, "--%s: missing value (%s)", name,
					    st_options[id].arg);
			val = argv[++i];
		}
		if (id == ST_OPT_SET && given[id] > 1) {
			/* each --set is one more set: the sets so far, ';', this one */
			char all[ST_STR_MAX];
			size_t off = 0;
			for (int k = 0; k < cfg->o[id].n && off < sizeof(all); k++)
				off += (size_t)snprintf(all + off, sizeof(all) - off, "%s;",
							st_optval_str(&cfg->o[id], k));
			if (off + strlen(val) >= sizeof(all))
				return fail(err, errn, NULL, "--set: the sets are longer than %zu bytes",
					    sizeof(all) - 1);
			st_copy(all + off, sizeof(all) - off, val);
			if (st_config_set(cfg, id, all, 1, NULL, err, errn))
				return -1;
			continue;
		}
		if (st_config_set(cfg, id, val, 1, NULL, err, errn))
			return -1;
	}
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int st_config_parse_plan(struct st_config *cfg, const char *text, const char *fname,
			 char *err, size_t errn)
{
	int lineno = 0, first_line[ST_OPT_COUNT] = { 0 };
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[ST_STR_MAX + 128], where[ST_STR_MAX + 32];
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", fname, lineno);
		if (len >= sizeof(line))
			return fail(err, errn, where, "line too long");
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl ? nl + 1 : p + len;
		/* '#' starts a comment; "\#" is a '#' of the value (st_config_dump
		 * writes one so) */
		char *w = line;
		for (const char *r = line; *r && *r != '#'; r++) {
			if (r[0] == '\\' && r[1] == '#')
				r++;
			*w++ = *r;
		}
		*w = '\0';
		char *l = trim(line);
		if (!*l)
			continue;
		char *eq = strchr(l, '=');
		if (!eq)
			return fail(err, errn, where, "expected 'key = value', got '%s'", l);
		*eq = '\0';
		char *key = trim(l), *val = trim(eq + 1);
		int id = st_opt_find(key);
		if (id < 0 || (st_options[id].flags & ST_OF_NO_PLAN))
			return fail(err, errn, where, "unknown key '%s'", key);
		if (first_line[id])
			return fail(err, errn, where, "key '%s' is given twice (first on line %d)", key,
				    first_line[id]);
		first_line[id] = lineno;
		if (st_options[id].type == ST_T_FLAG) {
			if (strcmp(val, "on") && strcmp(val, "off") && strcmp(val, "true") &&
			    strcmp(val, "false"))
				return fail(err, errn, where, "--%s: expected on or off, got '%s'", key,
					    val);
			if (!strcmp(val, "off") || !strcmp(val, "false"))
				continue;
		}
		/* spaces around commas are fine in a file ("4k, 1m"); inside a
		 * value they are not ("1 0 k" is no size, not 10k) */
		char packed[ST_STR_MAX + 128];
		size_t k = 0;
		for (char *c = val; *c && k + 1 < sizeof(packed); c++) {
			if (st_options[id].type != ST_T_STRING && isspace((unsigned char)*c)) {
				const char *next = c;
				while (isspace((unsigned char)*next))
					next++;
				if ((k && packed[k - 1] == ',') || *next == ',' || !*next)
					continue;
			}
			packed[k++] = *c;
		}
		packed[k] = '\0';
		if (st_config_set(cfg, id, packed, 0, where, err, errn))
			return -1;
	}
	return 0;
}

/* The largest value option id takes, given or in a set (ST_UNSET: none). */
static int64_t largest(const struct st_config *cfg, int id)
{
	int64_t m = ST_UNSET;
	for (int k = 0; k < cfg->o[id].n; k++)
		m = cfg->o[id].v[k] > m ? cfg->o[id].v[k] : m;
	for (int k = 0; k < cfg->o[ST_OPT_SET].n; k++) {
		int64_t v;
		if (st_set_lookup(cfg, k, id, &v) && v > m)
			m = v;
	}
	return m;
}

/* Does option id take value v anywhere (its list, or a set)? */
static int takes(const struct st_config *cfg, int id, int64_t v)
{
	for (int k = 0; k < cfg->o[id].n; k++)
		if (cfg->o[id].v[k] == v)
			return 1;
	for (int k = 0; k < cfg->o[ST_OPT_SET].n; k++) {
		int64_t x;
		if (st_set_lookup(cfg, k, id, &x) && x == v)
			return 1;
	}
	return 0;
}

/* Was option i given (command line or plan), not only its default? A set
 * may give an option that only has its default. */
static int given_by_user(const struct st_config *cfg, int i)
{
	const struct st_optval *ov = &cfg->o[i];
	const struct st_opt_def *d = &st_options[i];
	if (!ov->n)
		return 0;
	if (ov->from_args || !d->def || ov->n != 1 || d->type == ST_T_STRING)
		return 1;
	int64_t v;
	char err[ST_ERR_MAX];
	return parse_one(d, d->def, &v, err, sizeof(err), NULL) || v != ov->v[0];
}

/* Issue 13's options: each only where it means something, so a sweep never
 * repeats a combination under another name. */
static int workload_check(const struct st_config *cfg, char *err, size_t errn)
{
	for (int k = 0; k < cfg->o[ST_OPT_SET].n; k++) {
		const char *text = st_optval_str(&cfg->o[ST_OPT_SET], k);
		int64_t vals[ST_OPT_COUNT];
		set_parse(text, vals, err, errn, NULL); /* parsed when it was set */
		for (int i = 0; i < ST_OPT_COUNT; i++)
			if (vals[i] != ST_UNSET && given_by_user(cfg, i))
				return fail(err, errn, NULL, "--%s: given as an option and in --set '%s' "
							     "(give it in one place)",
					    st_options[i].name, text);
		if ((vals[ST_OPT_RWSIZE] != ST_UNSET || cfg->o[ST_OPT_RWSIZE].n) &&
		    (vals[ST_OPT_RSIZE] != ST_UNSET || vals[ST_OPT_WSIZE] != ST_UNSET))
			return fail(err, errn, NULL, "--set '%s': rwsize is rsize and wsize together: "
						     "give rwsize or rsize/wsize", text);
		if (vals[ST_OPT_RWSIZE] != ST_UNSET && (cfg->o[ST_OPT_RSIZE].n || cfg->o[ST_OPT_WSIZE].n))
			return fail(err, errn, NULL, "--set '%s': rwsize is rsize and wsize together: "
						     "give rwsize or rsize/wsize", text);
	}
	if (cfg->o[ST_OPT_RWSIZE].n && (cfg->o[ST_OPT_RSIZE].n || cfg->o[ST_OPT_WSIZE].n))
		return fail(err, errn, NULL, "--rwsize: sets rsize and wsize together: give it or "
					     "--rsize/--wsize, not both");
	unsigned ph = st_config_phases(cfg);
	static const struct {
		int id;
		unsigned phases;
		const char *what;
	} needs[] = {
		{ ST_OPT_FILES, ST_PHASES_META, "the metadata phases (create, stat, open, remove)" },
		{ ST_OPT_FILE_SIZE, ST_PHASES_META, "the metadata phases (create, stat, open, remove)" },
		{ ST_OPT_FANOUT, ST_PHASES_META, "the metadata phases (create, stat, open, remove)" },
		{ ST_OPT_LAYOUT, ST_PHASES_DATA, "the data phases" },
		{ ST_OPT_ACCESS, ST_PHASES_DATA, "the data phases" },
		{ ST_OPT_RWMIX, ST_PHASES_MIXED, "the mixed phases (rw, randrw)" },
		{ ST_OPT_RUNTIME, ST_PHASES_DATA, "the data phases" },
		{ ST_OPT_RAMP, ST_PHASES_DATA, "the data phases" },
		{ ST_OPT_STONEWALL, ST_PHASES_DATA, "the data phases" },
	};
	for (size_t i = 0; i < ST_ARRAY_LEN(needs); i++)
		if (st_config_given(cfg, needs[i].id) && !(ph & needs[i].phases))
			return fail(err, errn, NULL, "--%s: only for %s, and --phases has none",
				    st_options[needs[i].id].name, needs[i].what);
	if (st_config_given(cfg, ST_OPT_ACCESS) && !takes(cfg, ST_OPT_LAYOUT, ST_LAYOUT_SHARED))
		return fail(err, errn, NULL, "--access: only with --layout shared (a file per thread "
					     "is read and written in one piece)");
	if (takes(cfg, ST_OPT_STONEWALL, ST_ON) && st_config_given(cfg, ST_OPT_RUNTIME))
		return fail(err, errn, NULL, "--stonewall on: a time-based phase (--runtime) has no "
					     "first client to stop at; give one or the other");
	int64_t rt = largest(cfg, ST_OPT_RUNTIME), rp = largest(cfg, ST_OPT_RAMP);
	int64_t span = (rt == ST_UNSET ? 0 : rt) + (rp == ST_UNSET ? 0 : rp);
	if (span >= cfg->o[ST_OPT_DEADLINE].v[0]) {
		char d[32], x[32];
		st_format_duration(cfg->o[ST_OPT_DEADLINE].v[0], d, sizeof(d));
		st_format_duration(span, x, sizeof(x));
		return fail(err, errn, NULL, "--%s: %s of runtime and ramp does not end before "
					     "--deadline %s",
			    rt != ST_UNSET ? "runtime" : "ramp", x, d);
	}
	return 0;
}

int st_config_given(const struct st_config *cfg, int id)
{
	if (cfg->o[id].n)
		return 1;
	for (int k = 0; (st_options[id].flags & ST_OF_SWEEP) && k < cfg->o[ST_OPT_SET].n; k++) {
		int64_t v;
		if (st_set_lookup(cfg, k, id, &v))
			return 1;
	}
	return 0;
}

int st_set_lookup(const struct st_config *cfg, int set, int id, int64_t *v)
{
	int64_t vals[ST_OPT_COUNT];
	char err[ST_ERR_MAX];
	if (set < 0 || set >= cfg->o[ST_OPT_SET].n ||
	    set_parse(st_optval_str(&cfg->o[ST_OPT_SET], set), vals, err, sizeof(err), NULL) ||
	    vals[id] == ST_UNSET)
		return 0;
	*v = vals[id];
	return 1;
}

int st_config_check(const struct st_config *cfg, char *err, size_t errn)
{
	if (cfg->o[ST_OPT_RESUME].n)
		for (int i = 0; i < ST_OPT_COUNT; i++)
			if (cfg->o[i].from_args && i != ST_OPT_RESUME && i != ST_OPT_DB &&
			    i != ST_OPT_QUIET && i != ST_OPT_DEADLINE)
				return fail(err, errn, NULL,
					    "--%s: a resumed run keeps its stored options (only --db, "
					    "--quiet and --deadline may be given with --resume)",
					    st_options[i].name);
	int engine = (int)cfg->o[ST_OPT_ENGINE].v[0];
	if (!cfg->o[ST_OPT_TARGET].n && !cfg->o[ST_OPT_DRY_RUN].n && engine != ST_ENGINE_NULL)
		return fail(err, errn, NULL, "--target: missing (the directory to test)");
	if (!cfg->o[ST_OPT_DB].n)
		return fail(err, errn, NULL, "--db: missing");
	/* the null engine's knobs mean nothing elsewhere: a value other than the
	 * default is a mistake worth stopping for */
	static const int null_only[] = { ST_OPT_NULL_DELAY, ST_OPT_NULL_ERROR, ST_OPT_NULL_ERROR_AT,
					 ST_OPT_NULL_FAIL_SETUP, ST_OPT_NULL_DELAY_STEP };
	for (size_t i = 0; i < ST_ARRAY_LEN(null_only); i++) {
		const struct st_optval *ov = &cfg->o[null_only[i]];
		if (engine != ST_ENGINE_NULL && ov->n && (!st_options[null_only[i]].def || ov->v[0]))
			return fail(err, errn, NULL, "--%s: only for --engine null",
				    st_options[null_only[i]].name);
	}
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		if (!st_config_given(cfg, i))
			continue;
		if ((st_options[i].flags & ST_OF_MOUNT) && engine == ST_ENGINE_POSIX &&
		    !cfg->o[ST_OPT_MOUNT].n)
			return fail(err, errn, NULL,
				    "--%s: a mount option needs --mount SOURCE (and root) with the posix "
				    "engine; without it the options in force are recorded",
				    st_options[i].name);
		if (i == ST_OPT_MOUNT_OPTS && engine != ST_ENGINE_POSIX)
			return fail(err, errn, NULL, "--mount-opts: only for --engine posix with --mount");
	}
	if (workload_check(cfg, err, errn))
		return -1;
	if (cfg->o[ST_OPT_MOUNT].n && engine != ST_ENGINE_POSIX)
		return fail(err, errn, NULL, "--mount: only for --engine posix");
	/* --fstype is the type --mount mounts: alone it would change nothing */
	const struct st_optval *ft = &cfg->o[ST_OPT_FSTYPE];
	if (!cfg->o[ST_OPT_MOUNT].n && ft->n &&
	    (ft->from_args || strcmp(ft->s, st_options[ST_OPT_FSTYPE].def) != 0))
		return fail(err, errn, NULL, "--fstype: '%s' is the type --mount mounts; without "
					     "--mount nothing is mounted (give --mount SOURCE)",
			    ft->s);
	if (cfg->o[ST_OPT_MOUNT_OVER].n && !cfg->o[ST_OPT_MOUNT].n)
		return fail(err, errn, NULL, "--mount-over: only with --mount SOURCE");
	uint64_t n = st_plan_combos(cfg);
	if (n * (uint64_t)cfg->o[ST_OPT_ITERATIONS].v[0] > 1000000)
		return fail(err, errn, NULL,
			    "the matrix has %llu combinations x %lld iterations: over 1000000",
			    (unsigned long long)n, (long long)cfg->o[ST_OPT_ITERATIONS].v[0]);
	return 0;
}

uint64_t st_plan_combos(const struct st_config *cfg)
{
	uint64_t n = 1;
	for (int i = 0; i < ST_OPT_COUNT; i++)
		if ((st_options[i].flags & ST_OF_SWEEP) && cfg->o[i].n) {
			n *= (uint64_t)cfg->o[i].n;
			if (n > 1000000000ULL)
				return n; /* enough to refuse; avoids overflow */
		}
	return n;
}

void st_plan_combo(const struct st_config *cfg, uint64_t index, struct st_combo *c)
{
	memset(c, 0, sizeof(*c));
	c->version = ST_COMBO_VERSION;
	c->index = (uint32_t)index;
	/* mixed radix, last sweep option varies fastest */
	for (int i = ST_OPT_COUNT - 1; i >= 0; i--) {
		if (!(st_options[i].flags & ST_OF_SWEEP))
			continue;
		uint64_t n = (uint64_t)cfg->o[i].n;
		if (n == 0) {
			c->v[i] = ST_UNSET;
			continue;
		}
		/* a string list's value is its index in the list */
		c->v[i] = st_options[i].type == ST_T_STRING ? (int64_t)(index % n)
							    : cfg->o[i].v[index % n];
		index /= n;
	}
	/* a --set gives its options their values; rwsize is rsize and wsize */
	if (c->v[ST_OPT_SET] != ST_UNSET) {
		int64_t vals[ST_OPT_COUNT];
		char err[ST_ERR_MAX];
		if (!set_parse(st_optval_str(&cfg->o[ST_OPT_SET], (int)c->v[ST_OPT_SET]), vals, err,
			       sizeof(err), NULL))
			for (int i = 0; i < ST_OPT_COUNT; i++)
				if (vals[i] != ST_UNSET)
					c->v[i] = vals[i];
	}
	if (c->v[ST_OPT_RWSIZE] != ST_UNSET)
		c->v[ST_OPT_RSIZE] = c->v[ST_OPT_WSIZE] = c->v[ST_OPT_RWSIZE];
}

const char *st_optval_str(const struct st_optval *ov, int i)
{
	return i >= 0 && i < ov->n ? ov->s + ov->v[i] : "";
}

void st_opt_value_text(const struct st_config *cfg, int id, int64_t v, char *buf, size_t n)
{
	const struct st_opt_def *d = &st_options[id];
	if (v == ST_UNSET) {
		snprintf(buf, n, "-");
		return;
	}
	switch (d->type) {
	case ST_T_STRING: snprintf(buf, n, "%s", st_optval_str(&cfg->o[id], (int)v)); break;
	case ST_T_SIZE: st_format_size(v, buf, n); break;
	case ST_T_DURATION: st_format_duration(v, buf, n); break;
	case ST_T_ENUM: snprintf(buf, n, "%s", d->choices[v]); break;
	case ST_T_DATA: st_data_text(v, buf, n); break;
	case ST_T_ERRNO: {
		/* st_errno_name writes num only for a value it has no name for */
		char num[16];
		snprintf(buf, n, "%s", st_errno_name((int)v, num, sizeof(num)));
		break;
	}
	default: snprintf(buf, n, "%lld", (long long)v); break;
	}
}

void st_combo_text(const struct st_config *cfg, const struct st_combo *c, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < ST_OPT_COUNT && off + 1 < n; i++) {
		/* a set's and rwsize's values show as the options they give */
		if (!(st_options[i].flags & ST_OF_SWEEP) || c->v[i] == ST_UNSET || i == ST_OPT_SET ||
		    i == ST_OPT_RWSIZE)
			continue;
		char v[256];
		st_opt_value_text(cfg, i, c->v[i], v, sizeof(v));
		off += (size_t)snprintf(buf + off, n - off, "%s%s=%s", off ? " " : "",
					st_options[i].name, v);
	}
}

unsigned st_config_phases(const struct st_config *cfg)
{
	unsigned m = 0;
	for (int i = 0; i < cfg->o[ST_OPT_PHASES].n; i++)
		m |= 1u << cfg->o[ST_OPT_PHASES].v[i];
	return m;
}

void st_config_help(FILE *out)
{
	fprintf(out,
		"Options marked [list] take a comma list (4k,64k,1m); every list of a\n"
		"sweep option is a dimension of the matrix, which is their cartesian product.\n"
		"Sizes are binary (k = 1024). With no options, ./stcluster.conf is read.\n\n");
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		const struct st_opt_def *d = &st_options[i];
		char left[64];
		snprintf(left, sizeof(left), "--%s%s%s", d->name, d->arg ? " " : "",
			 d->arg ? d->arg : "");
		fprintf(out, "  %-30s %s%s", left,
			(d->flags & ST_OF_SWEEP) ? "[sweep] " : (d->flags & ST_OF_LIST) ? "[list] " : "",
			d->help);
		if (d->def && *d->def)
			fprintf(out, " (default %s)", d->def);
		fputc('\n', out);
	}
}

/* Text of a string value in a plan: a '#' would start a comment there. */
static void put_plan_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '#')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void st_config_dump(const struct st_config *cfg, FILE *out)
{
	for (int i = 0; i < ST_OPT_COUNT; i++) {
		const struct st_opt_def *d = &st_options[i];
		const struct st_optval *ov = &cfg->o[i];
		if (!ov->n || (d->flags & ST_OF_NO_PLAN) || d->type == ST_T_FLAG)
			continue;
		fprintf(out, "%s = ", d->name);
		if (d->type == ST_T_STRING && !is_list(d)) {
			put_plan_text(out, ov->s);
			fputc('\n', out);
			continue;
		}
		for (int k = 0; k < ov->n; k++) {
			if (k)
				fputc(d->sep ? d->sep : ',', out);
			if (d->type == ST_T_STRING) {
				/* an element may be as long as the option's whole text */
				put_plan_text(out, st_optval_str(ov, k));
				continue;
			}
			char v[256];
			st_opt_value_text(cfg, i, ov->v[k], v, sizeof(v));
			fputs(v, out);
		}
		fputc('\n', out);
	}
}
