/*
 * sampler.c - /proc sampling on server ranks (see sampler.h).
 *
 * Network counters come from this network namespace's /proc/net/dev (so a
 * lab host sees its own interfaces); CPU and disk counters are the
 * machine's. The NFS server process is found once per tick by scanning
 * /proc for ganesha.nfsd (in our network namespace) or nfsd kernel threads.
 * The kernel server's calls per operation come from /proc/net/rpc/nfsd
 * (the host's, where nfsd is loaded: a knfsd lab guest).
 */
#include "sampler.h"
#include "srvopts.h"

#include "../common/util.h"

#include <dirent.h>
#include <limits.h>
#include <sys/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_DEV 32

struct counter {
	char name[24];
	uint64_t a, b, c, d; /* rx/tx bytes, or read/write sectors and ops */
	uint64_t e, f;	     /* a disk's ms busy and ms waited by its requests */
	int seen;
};

struct st_sampler {
	struct st_sample *pts;
	size_t n, max, dropped;
	int primed;
	int64_t last_ns;
	uint64_t cpu_user, cpu_sys, cpu_iowait, cpu_total; /* jiffies */
	uint64_t nfsd_ticks;				    /* utime + stime */
	struct counter net[MAX_DEV], disk[MAX_DEV];
	int nnet, ndisk;
	long hz;
	pid_t nfsd[64];	    /* the NFS server's processes */
	int nnfsd;
	int64_t nfsd_scan_ns; /* when they were last looked for */
	int restarts;	      /* since the reset: the server's process set changed */
	struct st_nfsd_calls calls; /* /proc/net/rpc/nfsd at the last tick */
	int calls_seen;
	uint64_t pool[4]; /* /proc/fs/nfsd/pool_stats at the last tick, all pools */
	int pool_seen;
	char export_disk[32]; /* the whole disk the export is on; "" unknown */
};

struct st_sampler *st_sampler_new(size_t max_points)
{
	struct st_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->pts = calloc(max_points ? max_points : 1, sizeof(*s->pts));
	if (!s->pts) {
		free(s);
		return NULL;
	}
	s->max = max_points;
	s->hz = sysconf(_SC_CLK_TCK);
	return s;
}

int st_sampler_export(struct st_sampler *s, const char *path)
{
	s->export_disk[0] = '\0';
	struct stat sb;
	char link[128], real[PATH_MAX];
	if (!path[0] || stat(path, &sb))
		return -1;
	/* the block device the file system is on; a partition's disk is the
	 * directory above it in sysfs (.../block/vda/vda1) */
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(sb.st_dev), minor(sb.st_dev));
	if (!realpath(link, real))
		return -1; /* no block device: tmpfs, NFS, overlay... */
	char part[PATH_MAX + 16];
	snprintf(part, sizeof(part), "%s/partition", real);
	if (access(part, F_OK) == 0)
		*strrchr(real, '/') = '\0';
	const char *name = strrchr(real, '/');
	st_copy(s->export_disk, sizeof(s->export_disk), name ? name + 1 : real);
	return 0;
}

void st_sampler_free(struct st_sampler *s)
{
	if (!s)
		return;
	free(s->pts);
	free(s);
}

void st_sampler_reset(struct st_sampler *s)
{
	s->n = 0;
	s->dropped = 0;
	s->restarts = 0;
}

int st_sampler_restarts(const struct st_sampler *s)
{
	return s->restarts;
}

/* A new scan of the server's processes against the last one: a process
 * that was not there (it started again), or none left (it went away), is a
 * restart; the first scan only learns the set. */
static int server_changed(const pid_t *old, int nold, const pid_t *now, int nnow)
{
	if (nold == 0)
		return 0;
	if (nnow == 0)
		return 1;
	for (int i = 0; i < nnow; i++) {
		int seen = 0;
		for (int k = 0; k < nold && !seen; k++)
			seen = old[k] == now[i];
		if (!seen)
			return 1;
	}
	return 0;
}

const struct st_sample *st_sampler_points(const struct st_sampler *s, size_t *n)
{
	*n = s->n;
	return s->pts;
}

size_t st_sampler_dropped(const struct st_sampler *s)
{
	return s->dropped;
}

static void add(struct st_sampler *s, int64_t t, const char *metric, const char *dev, double v)
{
	if (s->n == s->max) {
		s->dropped++;
		return;
	}
	struct st_sample *p = &s->pts[s->n++];
	p->t_ns = t;
	st_copy(p->metric, sizeof(p->metric), metric);
	st_copy(p->device, sizeof(p->device), dev);
	p->value = v;
}

static struct counter *counter(struct counter *tab, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(tab[i].name, name) == 0)
			return &tab[i];
	if (*n == MAX_DEV)
		return NULL;
	struct counter *c = &tab[(*n)++];
	memset(c, 0, sizeof(*c));
	st_copy(c->name, sizeof(c->name), name);
	return c;
}

/* /proc/PID/stat of pid into buf (n bytes); 0, or -1 when it is gone. */
static int read_proc_stat(long pid, char *buf, size_t n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t got = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[got] = '\0';
	return 0;
}

/* The NFS server processes of this host (ganesha.nfsd in our network
 * namespace, or nfsd threads), found by scanning /proc: a few ms on a busy
 * machine, so it is done once a second, not at every tick. */
static int find_nfsd(pid_t *pids, int max)
{
	int n = 0;
	struct stat me;
	int have_ns = stat("/proc/self/ns/net", &me) == 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d)) && n < max;) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		char path[64], buf[512];
		if (read_proc_stat(atol(e->d_name), buf, sizeof(buf)))
			continue;
		char *open = strchr(buf, '('), *close = strrchr(buf, ')');
		if (!open || !close)
			continue;
		size_t len = (size_t)(close - open - 1);
		int ganesha = len == 12 && strncmp(open + 1, "ganesha.nfsd", 12) == 0;
		int knfsd = len == 4 && strncmp(open + 1, "nfsd", 4) == 0;
		if (!ganesha && !knfsd)
			continue;
		if (ganesha && have_ns) {
			/* another lab host's server is not ours */
			struct stat ns;
			snprintf(path, sizeof(path), "/proc/%s/ns/net", e->d_name);
			if (stat(path, &ns) || ns.st_ino != me.st_ino)
				continue;
		}
		pids[n++] = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return n;
}

/* Sum of utime+stime of those processes. */
static uint64_t nfsd_ticks(const pid_t *pids, int n)
{
	uint64_t sum = 0;
	for (int i = 0; i < n; i++) {
		char buf[512];
		if (read_proc_stat(pids[i], buf, sizeof(buf)))
			continue;
		char *close = strrchr(buf, ')');
		/* fields after the command: state(3) ... utime(14) stime(15) */
		unsigned long long ut = 0, stt = 0;
		if (close && sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				    &ut, &stt) == 2)
			sum += ut + stt;
	}
	return sum;
}

/* CPU use of the whole host since the last tick, from /proc/stat. */
static void tick_cpu(struct st_sampler *s, int64_t t)
{
	char line[512];
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return;
	unsigned long long v[8] = { 0 };
	if (fgets(line, sizeof(line), f) &&
	    sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) >= 5) {
		uint64_t user = v[0] + v[1], sys = v[2] + v[5] + v[6], iow = v[4];
		uint64_t total = 0;
		for (int i = 0; i < 8; i++)
			total += v[i];
		if (s->primed && total > s->cpu_total) {
			double dt_j = (double)(total - s->cpu_total);
			add(s, t, "cpu_user_pct", "", 100.0 * (double)(user - s->cpu_user) / dt_j);
			add(s, t, "cpu_sys_pct", "", 100.0 * (double)(sys - s->cpu_sys) / dt_j);
			add(s, t, "cpu_iowait_pct", "", 100.0 * (double)(iow - s->cpu_iowait) / dt_j);
		}
		s->cpu_user = user;
		s->cpu_sys = sys;
		s->cpu_iowait = iow;
		s->cpu_total = total;
	}
	fclose(f);
}

/* The NFS server processes' CPU since the last tick (the interval's rate
 * over the same processes as its start), and once a second which they are
 * (a change: the server restarted). */
static void tick_nfsd(struct st_sampler *s, int64_t now, int64_t t, double dt)
{
	uint64_t nt = nfsd_ticks(s->nfsd, s->nnfsd);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (s->primed && dt > 0 && nt >= s->nfsd_ticks)
		add(s, t, "nfsd_cpu_pct", "",
		    100.0 * (double)(nt - s->nfsd_ticks) / (double)s->hz / dt / (double)(ncpu > 0 ? ncpu : 1));
	s->nfsd_ticks = nt;
	if (!s->nfsd_scan_ns || now - s->nfsd_scan_ns > 1000000000) {
		pid_t before[ST_ARRAY_LEN(s->nfsd)];
		int nbefore = s->nnfsd;
		memcpy(before, s->nfsd, sizeof(before));
		s->nnfsd = find_nfsd(s->nfsd, (int)ST_ARRAY_LEN(s->nfsd));
		if (s->nfsd_scan_ns && server_changed(before, nbefore, s->nfsd, s->nnfsd)) {
			s->restarts++;
			add(s, t, "nfsd_restarts", "", 1);
		}
		s->nfsd_ticks = nfsd_ticks(s->nfsd, s->nnfsd);
		s->nfsd_scan_ns = now;
	}
}

/* Every interface but lo, from /proc/net/dev: MB/s each way. */
static void tick_net(struct st_sampler *s, int64_t t, double dt)
{
	char line[512];
	FILE *f = fopen("/proc/net/dev", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *name = line;
		while (*name == ' ')
			name++;
		if (strcmp(name, "lo") == 0)
			continue;
		unsigned long long rx, tx;
		if (sscanf(colon + 1, "%llu %*u %*u %*u %*u %*u %*u %*u %llu", &rx, &tx) != 2)
			continue;
		struct counter *c = counter(s->net, &s->nnet, name);
		if (!c)
			continue;
		if (s->primed && c->seen && dt > 0) {
			add(s, t, "net_rx_mbps", name, (double)(rx - c->a) / dt / 1e6);
			add(s, t, "net_tx_mbps", name, (double)(tx - c->b) / dt / 1e6);
		}
		c->a = rx;
		c->b = tx;
		c->seen = 1;
	}
	fclose(f);
}

/* Every whole disk that did I/O, from /proc/diskstats: MB/s and IOPS each way. */
static void tick_disk(struct st_sampler *s, int64_t t, double dt)
{
	char line[512];
	FILE *f = fopen("/proc/diskstats", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char name[32];
		unsigned long long rd_ios, rd_sec, wr_ios, wr_sec, busy_ms, wait_ms;
		if (sscanf(line, "%*u %*u %31s %llu %*u %llu %*u %llu %*u %llu %*u %*u %llu %llu", name,
			   &rd_ios, &rd_sec, &wr_ios, &wr_sec, &busy_ms, &wait_ms) != 7)
			continue;
		/* whole devices (not partitions: they would count twice) that
		 * did I/O at some point; no loop/ram noise */
		char sys[64];
		struct stat sb;
		snprintf(sys, sizeof(sys), "/sys/block/%s", name);
		if (!strncmp(name, "loop", 4) || !strncmp(name, "ram", 3) ||
		    (rd_ios == 0 && wr_ios == 0) || stat(sys, &sb))
			continue;
		struct counter *c = counter(s->disk, &s->ndisk, name);
		if (!c)
			continue;
		if (s->primed && c->seen && dt > 0) {
			add(s, t, "disk_read_mbps", name, (double)(rd_sec - c->b) * 512 / dt / 1e6);
			add(s, t, "disk_write_mbps", name, (double)(wr_sec - c->d) * 512 / dt / 1e6);
			add(s, t, "disk_read_iops", name, (double)(rd_ios - c->a) / dt);
			add(s, t, "disk_write_iops", name, (double)(wr_ios - c->c) / dt);
			/* io_ticks: the ms the disk had a request in flight (%util);
			 * time_in_queue: the ms all requests spent, so over dt the mean
			 * number in flight (aqu-sz) */
			double busy = (double)(busy_ms - c->e) / 10.0 / dt;
			add(s, t, "disk_busy_pct", name, busy > 100 ? 100 : busy);
			add(s, t, "disk_queue", name, (double)(wait_ms - c->f) / 1000.0 / dt);
			if (!strcmp(name, s->export_disk))
				add(s, t, "export_disk", name, 1);
		}
		c->a = rd_ios;
		c->b = rd_sec;
		c->c = wr_ios;
		c->d = wr_sec;
		c->e = busy_ms;
		c->f = wait_ms;
		c->seen = 1;
	}
	fclose(f);
}

/* Operation names, by number: NFSv3 procedures (RFC 1813) and NFSv4
 * operations (RFC 7530, 8881, 7862, 8276); 0-2 are not operations. */
static const char *const v3_names[ST_NFSD_V3_OPS] = {
	"NULL",	   "GETATTR", "SETATTR", "LOOKUP", "ACCESS",	  "READLINK", "READ",	 "WRITE",
	"CREATE",  "MKDIR",   "SYMLINK", "MKNOD",  "REMOVE",	  "RMDIR",    "RENAME",	 "LINK",
	"READDIR", "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT",
};
static const char *const v4_names[ST_NFSD_V4_OPS] = {
	[3] = "ACCESS", "CLOSE", "COMMIT", "CREATE", "DELEGPURGE", "DELEGRETURN", "GETATTR",
	"GETFH", "LINK", "LOCK", "LOCKT", "LOCKU", "LOOKUP", "LOOKUPP", "NVERIFY", "OPEN",
	"OPENATTR", "OPEN_CONFIRM", "OPEN_DOWNGRADE", "PUTFH", "PUTPUBFH", "PUTROOTFH", "READ",
	"READDIR", "READLINK", "REMOVE", "RENAME", "RENEW", "RESTOREFH", "SAVEFH", "SECINFO",
	"SETATTR", "SETCLIENTID", "SETCLIENTID_CONFIRM", "VERIFY", "WRITE", "RELEASE_LOCKOWNER",
	"BACKCHANNEL_CTL", "BIND_CONN_TO_SESSION", "EXCHANGE_ID", "CREATE_SESSION",
	"DESTROY_SESSION", "FREE_STATEID", "GET_DIR_DELEGATION", "GETDEVICEINFO", "GETDEVICELIST",
	"LAYOUTCOMMIT", "LAYOUTGET", "LAYOUTRETURN", "SECINFO_NO_NAME", "SEQUENCE", "SET_SSV",
	"TEST_STATEID", "WANT_DELEGATION", "DESTROY_CLIENTID", "RECLAIM_COMPLETE", "ALLOCATE",
	"COPY", "COPY_NOTIFY", "DEALLOCATE", "IO_ADVISE", "LAYOUTERROR", "LAYOUTSTATS",
	"OFFLOAD_CANCEL", "OFFLOAD_STATUS", "READ_PLUS", "SEEK", "WRITE_SAME", "CLONE", "GETXATTR",
	"SETXATTR", "LISTXATTRS", "REMOVEXATTR",
};

const char *st_nfsd_call_name(int vers, int i)
{
	if (vers == 3 && i >= 0 && i < ST_NFSD_V3_OPS)
		return v3_names[i];
	if (vers == 4 && i >= 0 && i < ST_NFSD_V4_OPS)
		return v4_names[i];
	return NULL;
}

/* "NAME N v1 .. vN" at line (NAME already matched): the N counts into
 * v[max]; 1, or 0 when N is out of range or a count is missing. */
static int parse_counts(const char *line, uint64_t *v, int max)
{
	char *end;
	long n = strtol(line, &end, 10);
	if (end == line || n < 1 || n > max)
		return 0;
	for (long i = 0; i < n; i++) {
		const char *p = end;
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			return 0;
		v[i] = strtoull(p, &end, 10);
	}
	return 1;
}

int st_nfsd_calls_parse(const char *text, struct st_nfsd_calls *c)
{
	memset(c, 0, sizeof(*c));
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, "proc3 ", 6))
			c->have3 = parse_counts(l + 6, c->v3, ST_NFSD_V3_OPS);
		else if (!strncmp(l, "proc4ops ", 9))
			c->have4 = parse_counts(l + 9, c->v4, ST_NFSD_V4_OPS);
	}
	return c->have3 || c->have4 ? 0 : -1;
}

/* The kernel NFS server's calls since the last tick, per operation that
 * had any (a count: "nfsd_calls", device "v3 WRITE"); a counter that went
 * back (nfsd restarted, its statistics reset) gives no point. */
static void tick_calls(struct st_sampler *s, int64_t t)
{
	char *text;
	if (st_read_file("/proc/net/rpc/nfsd", &text))
		return;
	struct st_nfsd_calls now;
	int bad = st_nfsd_calls_parse(text, &now);
	free(text);
	if (bad)
		return;
	for (int vers = 3; s->primed && s->calls_seen && vers <= 4; vers++) {
		const uint64_t *a = vers == 3 ? s->calls.v3 : s->calls.v4;
		const uint64_t *b = vers == 3 ? now.v3 : now.v4;
		int n = vers == 3 ? ST_NFSD_V3_OPS : ST_NFSD_V4_OPS;
		for (int i = 0; i < n; i++) {
			const char *name = st_nfsd_call_name(vers, i);
			if (!name || b[i] <= a[i])
				continue;
			char dev[24];
			snprintf(dev, sizeof(dev), "v%d %s", vers, name);
			add(s, t, "nfsd_calls", dev, (double)(b[i] - a[i]));
		}
	}
	s->calls = now;
	s->calls_seen = 1;
}

int st_nfsd_pool_parse(const char *text, uint64_t sum[4])
{
	int pools = 0;
	memset(sum, 0, 4 * sizeof(*sum));
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long v[4];
		if (*l != '#' && sscanf(l, "%*u %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]) == 4) {
			for (int i = 0; i < 4; i++)
				sum[i] += v[i];
			pools++;
		}
	}
	return pools;
}

/* The kernel NFS server's thread pool, where it runs: the threads it has
 * ("nfsd_threads") and, summed over its pools, what /proc/fs/nfsd/pool_stats
 * counted in the interval ("nfsd_pool", a count; device "packets" arrived,
 * "enqueued" transports queued, "woken" threads woken for them, "timedout"
 * idle threads that timed out). A call that arrived while no thread was
 * idle woke none: packets - woken is the calls that waited for a thread.
 * Nothing where no nfsd thread runs (ganesha, no server). */
static void tick_pool(struct st_sampler *s, int64_t t)
{
	char *text;
	if (st_read_file(ST_NFSD_THREADS_FILE, &text))
		return;
	long threads = strtol(text, NULL, 10);
	free(text);
	if (threads <= 0 || st_read_file("/proc/fs/nfsd/pool_stats", &text)) {
		s->pool_seen = 0;
		return;
	}
	uint64_t now[4];
	int pools = st_nfsd_pool_parse(text, now);
	free(text);
	if (pools <= 0)
		return;
	add(s, t, "nfsd_threads", "", (double)threads);
	static const char *const names[4] = { "packets", "enqueued", "woken", "timedout" };
	for (int i = 0; s->primed && s->pool_seen && i < 4; i++)
		if (now[i] >= s->pool[i])
			add(s, t, "nfsd_pool", names[i], (double)(now[i] - s->pool[i]));
	memcpy(s->pool, now, sizeof(now));
	s->pool_seen = 1;
}

void st_sampler_tick(struct st_sampler *s, int64_t offset_ns)
{
	int64_t now = st_now_ns();
	double dt = s->primed ? (double)(now - s->last_ns) / 1e9 : 0;
	int64_t t = now - offset_ns;
	tick_cpu(s, t);
	tick_nfsd(s, now, t, dt);
	tick_net(s, t, dt);
	tick_disk(s, t, dt);
	tick_calls(s, t);
	tick_pool(s, t);
	s->last_ns = now;
	s->primed = 1;
}
