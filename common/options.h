/*
 * options.h - the one typed options table.
 *
 * Every option stcluster knows is one row of st_options[] (options_table.c):
 * its name (the same on the command line, in a --plan file and as the
 * store's column), type, limits, allowed values, default, help and the
 * class of engine it needs. Parsing, --help, the man page, validation,
 * --dry-run output and the combo table's columns all come from this table
 * (options.c and its readers), so an option is added in one place: its row
 * (designated fields; one left out is 0 or NULL, which means none) and its
 * id in enum st_opt_id.
 *
 * This layer knows no engine. A row that means something only to some
 * engines names a class of them (ST_NEEDS_*); each engine declares the
 * classes it takes where it registers (worker/engine.h), and the worker's
 * st_engine_choose refuses an option the chosen engine does not take.
 *
 * A sweep option takes a list (comma-separated, or by the row's own sep
 * where its values hold commas: --mount-opts, --set); the run's matrix is
 * the cartesian product of all sweep options (first option in table order
 * varies slowest).
 * st_config and st_combo are fixed-size and pointer-free, so they can be
 * broadcast as bytes.
 */
#ifndef ST_OPTIONS_H
#define ST_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ST_MAX_VALUES 64 /* values per list option */
#define ST_STR_MAX 1024	 /* bytes per text option, NUL included */
#define ST_ERR_MAX 512	 /* bytes of one error line */
#define ST_DB_DEFAULT "./stcluster.db" /* --db of a run and of every subcommand */

/*
 * Limits an option's row shares with code that holds that many of
 * something: the row takes its max from here, the other side sizes its
 * array by it (or asserts it fits), so neither can change alone.
 */
#define ST_IODEPTH_MAX 256	   /* --iodepth: the worker's read-ahead ring, the null
				      engine's slots, an io_uring ring's entries */
#define ST_NFSD_THREADS_MAX 8192	   /* --server-threads: knfsd's NFSD_MAXSERVS */
#define ST_NCONNECT_MAX 16	   /* --nconnect: libnfs contexts of one thread (lnfs.h) */
#define ST_BASELINE_STREAMS_MAX 64 /* --baseline-streams: a client's sockets (baselines.c) */

enum st_opt_id {
	/* run-level options */
	ST_OPT_TARGET,
	ST_OPT_ENGINE,
	ST_OPT_PHASES,
	ST_OPT_ITERATIONS,
	ST_OPT_DEADLINE,
	ST_OPT_DB,
	ST_OPT_LABEL,
	ST_OPT_SEED,
	ST_OPT_NULL_DELAY,
	ST_OPT_NULL_ERROR,
	ST_OPT_NULL_ERROR_AT,
	ST_OPT_NULL_FAIL_SETUP,
	ST_OPT_PLAN,
	ST_OPT_DRY_RUN,
	ST_OPT_QUIET,
	ST_OPT_VERIFY,
	ST_OPT_MOUNT,
	ST_OPT_FSTYPE,
	ST_OPT_SERVERS,
	ST_OPT_SERVER_DIR,
	ST_OPT_BASELINE,
	ST_OPT_BASELINE_TIME,
	ST_OPT_BASELINE_SIZE,
	ST_OPT_SAMPLE_HZ,
	ST_OPT_SHUFFLE,
	ST_OPT_RESUME,
	ST_OPT_PROGRESS,
	/* issue 11 (trust): the network baseline as a credible upper bound */
	ST_OPT_BASELINE_STREAMS,
	/* issue 10: the kernel client's mount driver */
	ST_OPT_MOUNT_OVER,
	/* sweep options: each one a matrix dimension and a combo column */
	ST_OPT_BLOCK,
	ST_OPT_SIZE,
	ST_OPT_THREADS,
	ST_OPT_DIRECT,
	ST_OPT_FSYNC,
	ST_OPT_REORDER,
	ST_OPT_BIND,
	ST_OPT_DATA,
	/* NFS options (names as nfs(5)); unset unless given: the engine's or
	 * the server's default applies and the effective value is stored */
	ST_OPT_VERS,
	ST_OPT_PROTO,
	ST_OPT_RSIZE,
	ST_OPT_WSIZE,
	ST_OPT_SYNC,
	ST_OPT_HARD,
	ST_OPT_TIMEO,
	ST_OPT_RETRANS,
	ST_OPT_NCONNECT,
	ST_OPT_AC,
	ST_OPT_ACTIMEO,
	ST_OPT_IODEPTH,
	ST_OPT_MOUNT_OPTS,
	/* issue 13, workloads: metadata phases, shared file, mixed and
	 * time-based phases, throughput over time, tied dimensions and option
	 * sets (sweep options unless marked; unset unless given) */
	ST_OPT_FILES,	   /* metadata: files per thread */
	ST_OPT_FILE_SIZE,  /* metadata: bytes of each */
	ST_OPT_FANOUT,	   /* metadata: subdirectories per thread */
	ST_OPT_LAYOUT,	   /* file-per-thread | shared */
	ST_OPT_ACCESS,	   /* shared: segmented | strided */
	ST_OPT_RWMIX,	   /* mixed phases: % of calls that read */
	ST_OPT_RUNTIME,	   /* time-based data phases */
	ST_OPT_RAMP,	   /* excluded from the figures */
	ST_OPT_STONEWALL,  /* stop when the first client is done */
	ST_OPT_RWSIZE,	   /* rsize = wsize, one dimension */
	ST_OPT_SET,	   /* named option sets, swept as one dimension */
	ST_OPT_INTERVAL,   /* run-level: width of the throughput-over-time intervals */
	ST_OPT_KEEP,	   /* run-level: leave the files */
	ST_OPT_NULL_DELAY_STEP, /* run-level: null engine, uneven ranks */
	ST_OPT_NULL_SURFACE,	/* run-level: null engine, delay as a function of the options */
	ST_OPT_OUTPUT,	   /* run-level (issue 21): the run's report into a file */
	ST_OPT_OUTPUT_FORMAT, /* run-level: its format */
	ST_OPT_DEDUPE_UNIT,	/* run-level: --data dedupe's unit (unset: the block) */
	ST_OPT_COMPRESS_CHUNK,	/* run-level: --data compress's chunk (unset: the block) */
	ST_OPT_SEARCH,	   /* run-level (issue 21): full sweep or successive halving */
	ST_OPT_BUDGET,	   /* run-level: halving's budget, a wall time or combination-runs */
	/* issue 20, mdtest's directory workloads (sweep options) */
	ST_OPT_DIR_MODE,   /* metadata: unique | shared directory */
	ST_OPT_DEPTH,	   /* metadata: levels of the --fanout tree */
	/* issue 23: the server's options, applied by the server ranks (sweep) */
	ST_OPT_SERVER_THREADS, /* knfsd: /proc/fs/nfsd/threads */
	ST_OPT_SERVER_EXPORT,  /* knfsd: exportfs -o options of the export */
	ST_OPT_COUNT
};

enum st_opt_type {
	ST_T_STRING,   /* text, one value */
	ST_T_SIZE,     /* bytes with k/m/g/t */
	ST_T_COUNT,    /* whole number */
	ST_T_DURATION, /* nanoseconds; plain numbers are in the option's unit */
	ST_T_ENUM,     /* index into choices[] */
	ST_T_ERRNO,    /* errno value, given as a name (EIO) or number */
	ST_T_FLAG,     /* present or not; takes no value */
	ST_T_DATA,     /* a --data pattern (common/data.h), stored as its text */
};

#define ST_OF_SWEEP 0x1u    /* a list (sep), a matrix dimension, stored per combo */
#define ST_OF_LIST 0x2u	    /* a list (sep) of one run-level set (e.g. phases) */
#define ST_OF_NO_PLAN 0x4u  /* command line only (not a plan key) */
#define ST_OF_NFS 0x8u	    /* an NFS client option: requested and effective stored */
#define ST_OF_SERVER 0x10u  /* an NFS server option: the server ranks apply it before the
			       clients mount; requested and effective stored per server rank */

/*
 * What an engine must take for an option to mean anything (st_opt_def.needs;
 * 0: every engine takes it). An engine declares the classes it applies
 * itself, and those it applies once --mount has mounted --target for it
 * (struct st_engine in worker/engine.h); an option given other than its
 * default whose class the chosen engine does not take is refused, naming
 * the engines that take it.
 */
#define ST_NEEDS_NFS 0x1u     /* an NFS client option (nfs(5)): a client, or a mount, applies it */
#define ST_NEEDS_MOUNTER 0x2u /* the mount driver's: an engine that can mount --target (--mount) */
#define ST_NEEDS_MOUNTED 0x4u /* handed to mount(8) as they are: only on a mounted --target */
#define ST_NEEDS_SIM 0x8u     /* a knob of an engine that simulates I/O (delays, injected errors) */
#define ST_NEEDS_ALL (ST_NEEDS_NFS | ST_NEEDS_MOUNTER | ST_NEEDS_MOUNTED | ST_NEEDS_SIM)

/* The value of a sweep option left unset (its column is NULL). */
#define ST_UNSET INT64_MIN

struct st_opt_def {
	const char *name;	   /* "block": --block, plan key and column name */
	const char *arg;	   /* placeholder in help, "SIZE"; NULL for a flag */
	enum st_opt_type type;
	unsigned flags;		   /* ST_OF_* */
	unsigned needs;		   /* ST_NEEDS_*: the engines it means something to (0: all) */
	const char *const *choices; /* ST_T_ENUM: NULL-terminated values */
	const char *const *aliases; /* ST_T_ENUM: other spellings, pairs of it and its
				       choice, NULL-terminated ("4.0", "4") */
	int64_t min, max;	   /* numeric limits (inclusive; max <= min: none) */
	int64_t unit_ns;	   /* ST_T_DURATION: unit of a plain number */
	int64_t align;		   /* numeric values must be multiples of this (0: any) */
	char sep;		   /* list separator (0: ',') */
	const char *def;	   /* default as user text; NULL: unset */
	const char *help;	   /* one line */
};

extern const struct st_opt_def st_options[ST_OPT_COUNT];

/*
 * The values of each choice option (ST_T_ENUM), as stored in st_optval.v
 * and st_combo.v: the index of the word in its choices list. The lists in
 * options_table.c are written with these as designated initializers, and a
 * _Static_assert there ties each list's length to its enum, so the word
 * and the number cannot drift apart; compare with these, never with bare
 * numbers.
 */
enum st_on_off { ST_OFF, ST_ON, ST_ON_OFF_COUNT }; /* direct, fsync, reorder, verify, baseline */
#define ST_STONEWALL_WEAROUT 2 /* --stonewall's third value (off, on: ST_OFF, ST_ON) */
#define ST_STONEWALL_COUNT 3
enum st_bind { ST_BIND_NONE, ST_BIND_CORE, ST_BIND_PU, ST_BIND_NUMA, ST_BIND_COUNT };
enum st_layout { ST_LAYOUT_FPT, ST_LAYOUT_SHARED, ST_LAYOUT_COUNT };
enum st_access { ST_ACCESS_SEGMENTED, ST_ACCESS_STRIDED, ST_ACCESS_COUNT };
enum st_dir_mode { ST_DIR_UNIQUE, ST_DIR_SHARED, ST_DIR_MODE_COUNT };
#define ST_META_DEPTH_MAX 16	     /* --depth's largest */
#define ST_META_LEAVES_MAX 1000000 /* --fanout ^ --depth's largest */
enum st_vers { ST_VERS_3, ST_VERS_4, ST_VERS_4_1, ST_VERS_4_2, ST_VERS_COUNT };
enum st_proto { ST_PROTO_TCP, ST_PROTO_UDP, ST_PROTO_RDMA, ST_PROTO_COUNT };
enum st_sync { ST_SYNC_SYNC, ST_SYNC_ASYNC, ST_SYNC_COUNT };
enum st_hard { ST_HARD_HARD, ST_HARD_SOFT, ST_HARD_COUNT };
enum st_ac { ST_AC_AC, ST_AC_NOAC, ST_AC_COUNT };
enum st_progress { ST_PROGRESS_AUTO, ST_PROGRESS_LIVE, ST_PROGRESS_PLAIN, ST_PROGRESS_NONE,
		   ST_PROGRESS_COUNT };
/* --output-format: in the order of store/output.h's enum st_format (main.c asserts it) */
enum st_out_format { ST_OUT_TABLE, ST_OUT_CSV, ST_OUT_JSON, ST_OUT_MARKDOWN, ST_OUT_COUNT };
/* --search: the whole matrix, or successive halving (common/search.h) */
enum st_search_mode { ST_SEARCH_FULL, ST_SEARCH_HALVING, ST_SEARCH_COUNT };

enum st_phase {
	ST_PHASE_WRITE,
	ST_PHASE_REWRITE,
	ST_PHASE_READ,
	ST_PHASE_REREAD,
	ST_PHASE_RANDREAD,
	ST_PHASE_RANDWRITE,
	ST_PHASE_RW,	 /* mixed: reads and writes interleaved (--rwmix) */
	ST_PHASE_RANDRW, /* the same in random order */
	ST_PHASE_CREATE, /* metadata: --files small files per thread */
	ST_PHASE_STAT,
	ST_PHASE_READDIR, /* each directory listed, every entry's attributes (ls -l) */
	ST_PHASE_OPEN,
	ST_PHASE_REMOVE,
	ST_PHASE_MKDIR,	  /* metadata (issue 20): --files directories per thread */
	ST_PHASE_DIRSTAT,
	ST_PHASE_RMDIR,
	ST_PHASE_COUNT
};
extern const char *const st_phase_names[ST_PHASE_COUNT + 1];

/* Kinds of phase, as masks of 1u << ST_PHASE_*. */
#define ST_PHASES_WRITE (1u << ST_PHASE_WRITE | 1u << ST_PHASE_REWRITE | 1u << ST_PHASE_RANDWRITE)
#define ST_PHASES_READ (1u << ST_PHASE_READ | 1u << ST_PHASE_REREAD | 1u << ST_PHASE_RANDREAD)
#define ST_PHASES_MIXED (1u << ST_PHASE_RW | 1u << ST_PHASE_RANDRW)
#define ST_PHASES_RANDOM (1u << ST_PHASE_RANDREAD | 1u << ST_PHASE_RANDWRITE | 1u << ST_PHASE_RANDRW)
#define ST_PHASES_DATA (ST_PHASES_WRITE | ST_PHASES_READ | ST_PHASES_MIXED)
#define ST_PHASES_DIR (1u << ST_PHASE_MKDIR | 1u << ST_PHASE_DIRSTAT | 1u << ST_PHASE_RMDIR)
#define ST_PHASES_META                                                                          \
	(1u << ST_PHASE_CREATE | 1u << ST_PHASE_STAT | 1u << ST_PHASE_READDIR | 1u << ST_PHASE_OPEN | \
	 1u << ST_PHASE_REMOVE | ST_PHASES_DIR)

/* Values of one option. */
struct st_optval {
	int32_t n;	     /* number of values (0: unset) */
	int32_t from_args;   /* set on the command line (overrides the plan) */
	int64_t v[ST_MAX_VALUES]; /* numeric values / enum indexes, in order given */
	char s[ST_STR_MAX];  /* ST_T_STRING value; for a string list, the values
				separated by NUL bytes, v[i] = offset of value i */
};

/* A phase's own values (a [phase] section of a plan file, common/phaseopt.h):
 * one value per option of st_phase_keys, encoded as st_combo.v, each
 * replacing the combination's value of that option in that phase. */
struct st_phase_vals {
	uint8_t given[ST_PHASE_COUNT][ST_OPT_COUNT]; /* 1: the phase has its own value */
	int64_t v[ST_PHASE_COUNT][ST_OPT_COUNT];
	int32_t line[ST_PHASE_COUNT];		     /* the section's plan line (0: none) */
};

struct st_config {
	struct st_optval o[ST_OPT_COUNT];
	struct st_phase_vals ph;
};

/* One point of the matrix, as broadcast to every rank. */
#define ST_COMBO_VERSION 2
struct st_combo {
	uint32_t version;   /* ST_COMBO_VERSION */
	uint32_t seq;	    /* 0-based order in the run */
	uint32_t index;	    /* matrix index (same options => same index) */
	uint32_t iteration; /* 0-based repeat of that index */
	int32_t stage;	    /* --search halving: 0-based stage; -1 in a full sweep */
	uint32_t reserved;  /* 0: v[] stays 8-byte aligned without padding */
	int64_t v[ST_OPT_COUNT]; /* value per sweep option; 0 for others */
};

/* Text of value i of a string list option (e.g. mount-opts). */
const char *st_optval_str(const struct st_optval *ov, int i);

/* Look an option up by name (without dashes); -1 if unknown. */
int st_opt_find(const char *name);

/* err = "WHERE: " (when where is not NULL) and the message; returns -1:
 * the parsers' refusals (options.c, phaseopt.c). */
int st_opt_fail(char *err, size_t n, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The option takes a list ([sweep] or [list]). */
int st_opt_is_list(const struct st_opt_def *d);

/* One value of option id from user text, encoded as st_combo.v (an enum's
 * index, bytes, ns), checked against the row's limits. 0, or -1 with one
 * line in err naming the option and the value. */
int st_opt_parse_value(int id, const char *text, int64_t *v, char *err, size_t n);

/* Fill every option with its default. A default its own parser refuses is
 * a bug in the table: reported on stderr, then abort(). */
void st_config_defaults(struct st_config *cfg);

/*
 * Set option `id` from user text. `from_args` marks a command-line value
 * (a later plan value does not replace it). On error writes one line into
 * err ("--block: invalid size '12q' (unknown unit ...)") and returns -1.
 * `where` prefixes the message when not NULL ("plan.conf:3").
 */
int st_config_set(struct st_config *cfg, int id, const char *text, int from_args,
		  const char *where, char *err, size_t errn);

/*
 * Parse the command line (argv[0] is the program, argv[1..] options).
 * Options given here win over the plan. Returns 0, or -1 with err set.
 */
int st_config_parse_args(struct st_config *cfg, int argc, char **argv, char *err,
			 size_t errn);

/* Parse plan text ("key = v1,v2", '#' comments; "\#" is a '#' in a value).
 * Command-line values win. */
int st_config_parse_plan(struct st_config *cfg, const char *text, const char *fname,
			 char *err, size_t errn);

/* A --db a store can be: the path of a file, not SQLite's ":memory:" nor
 * a "file:" URI (a run stored there would be stored nowhere, or somewhere
 * else than the path says). 0, or -1 with one line in err. */
int st_db_name_check(const char *path, char *err, size_t errn);

/* The checks that need neither a file system nor the engine: options that
 * exclude or need each other, the size of the matrix. 0, or -1 with one
 * line in err. A run calls worker/engine.h's st_engine_choose, which calls
 * this and adds what depends on the engine. */
int st_config_check(const struct st_config *cfg, char *err, size_t errn);

/* Is option id given other than its default: values of its own that are
 * not only the default, or in one of the --set sets? */
int st_config_chosen(const struct st_config *cfg, int id);

/* The values of option id as a message names them: its own ("4k,1m"), or,
 * given only in a set, the set's ("3 (--set 'vers=3,rsize=64k')"); cut
 * with "..." to fit n bytes. */
void st_config_given_text(const struct st_config *cfg, int id, char *buf, size_t n);

/* Number of distinct combinations (product of sweep list lengths). */
uint64_t st_plan_combos(const struct st_config *cfg);

/* Fill combo for matrix index `index` (0 <= index < st_plan_combos). */
void st_plan_combo(const struct st_config *cfg, uint64_t index, struct st_combo *c);

/* Text of one value of option id ("4k", "on", "2"; "-" when unset). */
void st_opt_value_text(const struct st_config *cfg, int id, int64_t v, char *buf, size_t n);

/* "block=4k size=64m threads=2 ..." for every sweep option that is set. */
void st_combo_text(const struct st_config *cfg, const struct st_combo *c, char *buf, size_t n);

/* Bitmask of phases (1u << ST_PHASE_*). */
unsigned st_config_phases(const struct st_config *cfg);

/* Is option id given: a value of its own, or in one of the --set sets? */
int st_config_given(const struct st_config *cfg, int id);

/* The longest name of a set ("NAME:key=v,..."). */
#define ST_SET_NAME_MAX 63

/* The name of set number `set` of ov (the --set values): the NAME of
 * "NAME:key=v,...", or without one the set's text; in buf, returned. */
const char *st_set_name(const struct st_optval *ov, int set, char *buf, size_t n);

/* Does set number `set` (0-based, of --set) give option id a value? 1 and
 * *v (encoded as st_combo.v), or 0. */
int st_set_lookup(const struct st_config *cfg, int set, int id, int64_t *v);

/* --help's text of the options (main.c prints the usage lines above it). */
void st_config_help(FILE *out);

/* The configuration as plan text (every option that has a value), which
 * st_config_parse_plan reads back to the same values. */
void st_config_dump(const struct st_config *cfg, FILE *out);

#endif
