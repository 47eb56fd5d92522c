/*
 * The mount driver: the -o string of a combination, the kernel's text
 * formats (fixtures in tests/fixtures/, read from the repository root, where
 * tests/run.sh starts the runner), and real mount cycles as root: tmpfs
 * (umount+mount, in-place remount, effective options, nothing left mounted)
 * and ext4 on a loop device (a remount and drop_caches really empty the page
 * cache, seen with mincore). Not root, or EPERM from mount(8), is a failure
 * that says so: these run as root here and in CI.
 */
#include "../../common/options.h"
#include "../../common/util.h"
#include "../../worker/mount.h"
#include "unit.h"
#include <sched.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ---- */

static void cfg_set(struct st_config *c, int id, const char *text)
{
	char err[ST_ERR_MAX];
	if (st_config_set(c, id, text, 1, NULL, err, sizeof(err)))
		fprintf(stderr, "    setting --%s %s: %s\n", st_options[id].name, text, err);
}

/* The -o string of combination index of cfg; returns st_mount_options' rc. */
static int opts_of(const struct st_config *cfg, uint64_t index, char *out, size_t n)
{
	struct st_combo c;
	st_plan_combo(cfg, index, &c);
	return st_mount_options(cfg, &c, out, n);
}

static int is_root(void)
{
	if (geteuid() == 0)
		return 1;
	fprintf(stderr, "    mount tests need root (euid %d): failing, not skipping\n",
		(int)geteuid());
	return 0;
}

/* Lines of /proc/self/mounts naming path (as the kernel escapes it). */
static int mounts_naming(const char *path)
{
	char *m = unit_slurp("/proc/self/mounts");
	int count = 0;
	for (char *p = m; p && (p = strstr(p, path)); p++)
		count++;
	free(m);
	return count;
}

/* Mounts exactly on path, from mountinfo. */
static int mounts_on(const char *path)
{
	char *mi = unit_slurp("/proc/self/mountinfo");
	char want[PATH_MAX + 2];
	snprintf(want, sizeof(want), " %s ", path);
	int count = 0;
	for (char *p = mi; p && (p = strstr(p, want)); p++)
		count++;
	free(mi);
	return count;
}

static void report_mount_rc(const char *what, int rc, const char *msg)
{
	if (rc == 0)
		return;
	fprintf(stderr, "    %s: %s (%s)%s\n", what, strerror(-rc), msg,
		rc == -EPERM ? ": mount needs root and CAP_SYS_ADMIN; these tests must run as root" : "");
}

/* Unmount whatever the test left on path (at most a few layers). */
static void unmount_all(const char *path)
{
	char msg[ST_ERR_MAX];
	for (int i = 0; i < 4 && st_umount(path, msg, sizeof(msg)) == 0; i++)
		;
}

static int write_file(const char *path, size_t len, unsigned char seed)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	unsigned char *buf = malloc(len);
	for (size_t i = 0; buf && i < len; i++)
		buf[i] = (unsigned char)(seed + i * 7);
	ssize_t w = buf ? write(fd, buf, len) : -1;
	int rc = w == (ssize_t)len && fsync(fd) == 0 ? 0 : -EIO;
	free(buf);
	close(fd);
	return rc;
}

static int file_matches(const char *path, size_t len, unsigned char seed)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	unsigned char *buf = malloc(len + 1);
	ssize_t r = buf ? read(fd, buf, len + 1) : -1;
	int ok = r == (ssize_t)len;
	for (size_t i = 0; ok && i < len; i++)
		ok = buf[i] == (unsigned char)(seed + i * 7);
	free(buf);
	close(fd);
	return ok;
}

/* Pages of path in the page cache (mincore on a mapping that touches none). */
static long resident_pages(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	long count = -1;
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t pages = ((size_t)st.st_size + page - 1) / page;
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		unsigned char *vec = malloc(pages);
		if (map != MAP_FAILED && vec && mincore(map, (size_t)st.st_size, vec) == 0) {
			count = 0;
			for (size_t i = 0; i < pages; i++)
				count += vec[i] & 1;
		}
		free(vec);
		if (map != MAP_FAILED)
			munmap(map, (size_t)st.st_size);
	}
	close(fd);
	return count;
}

/* Run a tool (absolute path) with argv, output to /dev/null; its exit status. */
static int run(const char *path, char *const argv[])
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	int rc = posix_spawn(&pid, path, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -1;
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- the -o string ---- */

static void options_nfs(void)
{
	static struct st_config cfg;
	char out[ST_STR_MAX];
	st_config_defaults(&cfg);
	cfg_set(&cfg, ST_OPT_VERS, "4.1");
	cfg_set(&cfg, ST_OPT_PROTO, "tcp");
	cfg_set(&cfg, ST_OPT_RSIZE, "1m");
	cfg_set(&cfg, ST_OPT_WSIZE, "512k");
	cfg_set(&cfg, ST_OPT_SYNC, "async");
	cfg_set(&cfg, ST_OPT_HARD, "soft");
	cfg_set(&cfg, ST_OPT_TIMEO, "600");
	cfg_set(&cfg, ST_OPT_RETRANS, "2");
	cfg_set(&cfg, ST_OPT_NCONNECT, "4");
	cfg_set(&cfg, ST_OPT_AC, "noac");
	cfg_set(&cfg, ST_OPT_ACTIMEO, "30");
	cfg_set(&cfg, ST_OPT_MOUNT_OPTS, "nolock;lookupcache=none,fsc");
	CHECK_EQ_INT(st_plan_combos(&cfg), 2);
	CHECK_EQ_INT(opts_of(&cfg, 0, out, sizeof(out)), 0);
	CHECK(strcmp(out, "vers=4.1,proto=tcp,rsize=1048576,wsize=524288,async,soft,timeo=600,"
			  "retrans=2,nconnect=4,noac,actimeo=30,nolock") == 0);
	CHECK_EQ_INT(opts_of(&cfg, 1, out, sizeof(out)), 0);
	CHECK(strcmp(out, "vers=4.1,proto=tcp,rsize=1048576,wsize=524288,async,soft,timeo=600,"
			  "retrans=2,nconnect=4,noac,actimeo=30,lookupcache=none,fsc") == 0);

	/* the other spellings, and "4" pinned to minor version 0 */
	st_config_defaults(&cfg);
	cfg_set(&cfg, ST_OPT_FSTYPE, "nfs4");
	cfg_set(&cfg, ST_OPT_VERS, "4,4.2,3");
	cfg_set(&cfg, ST_OPT_SYNC, "sync");
	cfg_set(&cfg, ST_OPT_HARD, "hard");
	cfg_set(&cfg, ST_OPT_AC, "ac");
	cfg_set(&cfg, ST_OPT_PROTO, "rdma");
	CHECK_EQ_INT(opts_of(&cfg, 0, out, sizeof(out)), 0);
	CHECK(strcmp(out, "vers=4.0,proto=rdma,sync,hard,ac") == 0);
	CHECK_EQ_INT(opts_of(&cfg, 1, out, sizeof(out)), 0);
	CHECK(strcmp(out, "vers=4.2,proto=rdma,sync,hard,ac") == 0);
	CHECK_EQ_INT(opts_of(&cfg, 2, out, sizeof(out)), 0);
	CHECK(strcmp(out, "vers=3,proto=rdma,sync,hard,ac") == 0);
}

static void options_unset(void)
{
	static struct st_config cfg;
	char out[ST_STR_MAX];
	st_config_defaults(&cfg);
	CHECK_EQ_INT(opts_of(&cfg, 0, out, sizeof(out)), 0);
	CHECK(strcmp(out, "") == 0);
	cfg_set(&cfg, ST_OPT_RSIZE, "64k");
	CHECK_EQ_INT(opts_of(&cfg, 0, out, sizeof(out)), 0);
	CHECK(strcmp(out, "rsize=65536") == 0);
	st_config_defaults(&cfg);
	cfg_set(&cfg, ST_OPT_MOUNT_OPTS, "nolock");
	CHECK_EQ_INT(opts_of(&cfg, 0, out, sizeof(out)), 0);
	CHECK(strcmp(out, "nolock") == 0);
}

static void options_refused(void)
{
	static struct st_config cfg;
	char out[ST_STR_MAX];
	st_config_defaults(&cfg);
	cfg_set(&cfg, ST_OPT_FSTYPE, "tmpfs");
	cfg_set(&cfg, ST_OPT_MOUNT_OPTS, "size=1m,mode=0700;nr_inodes=100");
	CHECK_EQ_INT(opts_of(&cfg, 0, out, sizeof(out)), 0);
	CHECK(strcmp(out, "size=1m,mode=0700") == 0);
	CHECK_EQ_INT(opts_of(&cfg, 1, out, sizeof(out)), 0);
	CHECK(strcmp(out, "nr_inodes=100") == 0);

	cfg_set(&cfg, ST_OPT_WSIZE, "1m");
	CHECK_EQ_INT(opts_of(&cfg, 0, out, sizeof(out)), -EINVAL);
	CHECK(strstr(out, "--wsize") && strstr(out, "tmpfs"));

	/* the same option typed and in --mount-opts: the stored request would lie */
	st_config_defaults(&cfg);
	cfg_set(&cfg, ST_OPT_VERS, "4.2");
	cfg_set(&cfg, ST_OPT_AC, "noac");
	cfg_set(&cfg, ST_OPT_MOUNT_OPTS, "nolock,nfsvers=3;acregmin=10;ac;nolock");
	CHECK_EQ_INT(opts_of(&cfg, 0, out, sizeof(out)), -EINVAL);
	CHECK(strstr(out, "nfsvers=3") && strstr(out, "--vers"));
	CHECK_EQ_INT(opts_of(&cfg, 1, out, sizeof(out)), 0); /* no --actimeo given */
	CHECK(strcmp(out, "vers=4.2,noac,acregmin=10") == 0);
	CHECK_EQ_INT(opts_of(&cfg, 2, out, sizeof(out)), -EINVAL);
	CHECK(strstr(out, "--ac"));
	CHECK_EQ_INT(opts_of(&cfg, 3, out, sizeof(out)), 0);

	char small[8];
	CHECK_EQ_INT(opts_of(&cfg, 3, small, sizeof(small)), -E2BIG);
	CHECK(strlen(small) < sizeof(small));
}

/* ---- the kernel's text ---- */

static void mountinfo_fixtures(void)
{
	char *mi = unit_slurp("tests/fixtures/mountinfo.txt");
	CHECK(mi != NULL);
	if (!mi)
		return;
	struct st_mountinfo_entry *e = malloc(sizeof(*e));

	CHECK_EQ_INT(st_mountinfo_find(mi, "/", e), 0);
	CHECK_EQ_INT(e->mount_id, 22);
	CHECK_EQ_INT(e->parent_id, 1);
	CHECK_EQ_INT(e->major, 254);
	CHECK_EQ_INT(e->minor, 1);
	CHECK(strcmp(e->fstype, "ext4") == 0 && strcmp(e->source, "/dev/vda1") == 0);
	CHECK(strcmp(e->mount_opts, "rw,relatime") == 0);
	CHECK(strcmp(e->optional, "shared:1") == 0);
	CHECK(strcmp(e->super_opts, "rw,errors=remount-ro") == 0);

	CHECK_EQ_INT(st_mountinfo_find(mi, "/srv/bind/", e), 0); /* trailing slash */
	CHECK(strcmp(e->root, "/srv/data") == 0);
	CHECK(strcmp(e->optional, "shared:1 master:7") == 0);

	CHECK_EQ_INT(st_mountinfo_find(mi, "/run", e), 0);
	CHECK(strcmp(e->fstype, "tmpfs") == 0);
	CHECK(strcmp(e->super_opts, "rw,size=1635408k,mode=755,inode64") == 0);
	CHECK(strcmp(e->mount_opts, "rw,nosuid,nodev,noexec,relatime") == 0);

	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt/nfs3", e), 0);
	CHECK(strcmp(e->fstype, "nfs") == 0);
	CHECK(strcmp(e->source, "192.168.7.1:/export/data") == 0);
	CHECK(strncmp(e->super_opts, "rw,vers=3,rsize=1048576,", 24) == 0);
	CHECK(strstr(e->super_opts, ",proto=tcp,"));
	CHECK_EQ_INT(e->major, 0);
	CHECK_EQ_INT(e->minor, 52);

	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt/nfs42", e), 0);
	CHECK(strcmp(e->fstype, "nfs4") == 0);
	CHECK(strstr(e->super_opts, "nconnect=4") && strstr(e->super_opts, "vers=4.2"));

	/* \040 in the file, a space in the entry */
	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt/with space", e), 0);
	CHECK(strcmp(e->mount_point, "/mnt/with space") == 0);
	CHECK_EQ_INT(e->mount_id, 70);
	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt/with\\040space", e), -ENOENT);

	/* stacked: the later line is the mount on top */
	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt/stack", e), 0);
	CHECK_EQ_INT(e->mount_id, 82);
	CHECK_EQ_INT(e->parent_id, 80);
	CHECK(strcmp(e->fstype, "nfs4") == 0);
	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt/stack2", e), 0);
	CHECK_EQ_INT(e->mount_id, 83);
	CHECK(strcmp(e->source, "second") == 0);

	/* an empty source is an empty field (two spaces), not a shifted line */
	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt/nosrc", e), 0);
	CHECK(strcmp(e->source, "") == 0 && strcmp(e->fstype, "tmpfs") == 0);
	CHECK(strcmp(e->super_opts, "rw,size=1024k,inode64") == 0);

	CHECK_EQ_INT(st_mountinfo_find_id(mi, 45, e), 0);
	CHECK(strcmp(e->mount_point, "/srv/bind") == 0);
	CHECK_EQ_INT(st_mountinfo_find_id(mi, 9999, e), -ENOENT);
	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt", e), -ENOENT);
	CHECK_EQ_INT(st_mountinfo_find(mi, "/mnt/nfs", e), -ENOENT);
	CHECK_EQ_INT(st_mountinfo_find("garbage\n\n1 2 3\n", "/", e), -ENOENT);
	CHECK(!e->truncated);

	/* an over-long option field is cut at a comma and flagged */
	char *line = malloc(3 * ST_MOUNT_OPTS_MAX);
	int k = snprintf(line, 3 * ST_MOUNT_OPTS_MAX, "5 1 0:9 / /ovl rw - overlay overlay rw");
	while (k < 2 * ST_MOUNT_OPTS_MAX)
		k += snprintf(line + k, (size_t)(3 * ST_MOUNT_OPTS_MAX - k), ",lowerdir=/l%d", k);
	CHECK_EQ_INT(st_mountinfo_find(line, "/ovl", e), 0);
	CHECK(e->truncated);
	CHECK(strlen(e->super_opts) < ST_MOUNT_OPTS_MAX);
	const char *last = strrchr(e->super_opts, ',');
	CHECK(last && strncmp(last, ",lowerdir=/l", 12) == 0 && last[12] != '\0');
	free(line);
	free(e);
	free(mi);
}

static void mountstats_fixtures(void)
{
	char *ms = unit_slurp("tests/fixtures/mountstats.txt");
	CHECK(ms != NULL);
	if (!ms)
		return;
	char opts[ST_MOUNT_OPTS_MAX];
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/nfs3", opts, sizeof(opts)), 0);
	CHECK(strncmp(opts, "rw,vers=3,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,", 60) == 0);
	CHECK(strstr(opts, "local_lock=none") && !strchr(opts, '\t') && !strchr(opts, '\n'));
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/nfs42", opts, sizeof(opts)), 0);
	CHECK(strncmp(opts, "rw,sync,vers=4.2,", 17) == 0 && strstr(opts, "nconnect=4"));
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/nfs6", opts, sizeof(opts)), 0);
	CHECK(strstr(opts, "proto=tcp6"));
	/* not NFS: the mount is there, its line has no statistics */
	CHECK_EQ_INT(st_mountstats_find(ms, "/run", opts, sizeof(opts)), -ENODATA);
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/with space", opts, sizeof(opts)), -ENODATA);
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/nosrc", opts, sizeof(opts)), -ENODATA);
	/* stacked: the last one wins, NFS on top of tmpfs and tmpfs on top of NFS */
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/stack", opts, sizeof(opts)), 0);
	CHECK(strncmp(opts, "rw,vers=4.0,rsize=131072,", 25) == 0);
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/stack2", opts, sizeof(opts)), -ENODATA);
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/none", opts, sizeof(opts)), -ENOENT);
	char small[16];
	CHECK_EQ_INT(st_mountstats_find(ms, "/mnt/nfs3", small, sizeof(small)), -E2BIG);
	CHECK(strcmp(small, "rw,vers=3") == 0);
	free(ms);
}

/* effective values of the mount on mp in the fixtures (stats: use mountstats) */
static void effective_of(const char *mi, const char *ms, const char *mp, int stats,
			 struct st_effective *eff)
{
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	char opts[ST_MOUNT_OPTS_MAX];
	memset(eff, 0, sizeof(*eff));
	if (!e || st_mountinfo_find(mi, mp, e)) {
		CHECK(!"mount point in the fixture");
		free(e);
		return;
	}
	int have = stats && st_mountstats_find(ms, mp, opts, sizeof(opts)) == 0;
	st_mount_effective(e->fstype, e->mount_opts, e->super_opts, have ? opts : NULL, eff);
	free(e);
}

#define KNOWN(eff, id) st_effective_known(&(eff), (id))

static void effective_nfs(void)
{
	char *mi = unit_slurp("tests/fixtures/mountinfo.txt");
	char *ms = unit_slurp("tests/fixtures/mountstats.txt");
	CHECK(mi && ms);
	if (!mi || !ms)
		goto out;
	struct st_effective eff;

	effective_of(mi, ms, "/mnt/nfs3", 1, &eff);
	CHECK_EQ_INT(eff.v[ST_OPT_VERS], 0); /* "3" */
	CHECK_EQ_INT(eff.v[ST_OPT_PROTO], 0); /* tcp */
	CHECK_EQ_INT(eff.v[ST_OPT_RSIZE], 1048576);
	CHECK_EQ_INT(eff.v[ST_OPT_WSIZE], 1048576);
	CHECK_EQ_INT(eff.v[ST_OPT_SYNC], 1); /* async */
	CHECK_EQ_INT(eff.v[ST_OPT_HARD], 0);
	CHECK_EQ_INT(eff.v[ST_OPT_TIMEO], 600);
	CHECK_EQ_INT(eff.v[ST_OPT_RETRANS], 2);
	CHECK_EQ_INT(eff.v[ST_OPT_NCONNECT], 1); /* not shown: one connection */
	CHECK_EQ_INT(eff.v[ST_OPT_AC], 0);
	CHECK(!KNOWN(eff, ST_OPT_ACTIMEO)); /* 3/60/30/60 */
	CHECK(!KNOWN(eff, ST_OPT_IODEPTH) && !KNOWN(eff, ST_OPT_BLOCK));
	for (int id = ST_OPT_VERS; id <= ST_OPT_AC; id++)
		CHECK(KNOWN(eff, id));
	CHECK(strncmp(eff.options, "rw,relatime,vers=3,rsize=1048576,", 33) == 0);
	CHECK(strstr(eff.options, "acregmin=3,acregmax=60,acdirmin=30,acdirmax=60"));
	CHECK(strstr(eff.options, "addr=192.168.7.1"));
	CHECK(!strstr(eff.options, ",rw,") && !strstr(eff.options, ",,"));

	effective_of(mi, ms, "/mnt/nfs42", 1, &eff);
	CHECK_EQ_INT(eff.v[ST_OPT_VERS], 3); /* "4.2" */
	CHECK_EQ_INT(eff.v[ST_OPT_NCONNECT], 4);
	CHECK_EQ_INT(eff.v[ST_OPT_SYNC], 0); /* sync */
	CHECK_EQ_INT(eff.v[ST_OPT_HARD], 1); /* soft */
	CHECK_EQ_INT(eff.v[ST_OPT_TIMEO], 150);
	CHECK_EQ_INT(eff.v[ST_OPT_RETRANS], 3);
	CHECK(KNOWN(eff, ST_OPT_ACTIMEO));
	CHECK_EQ_INT(eff.v[ST_OPT_ACTIMEO], 30);

	/* mountinfo alone leaves acdirmin=30 out (the default): still actimeo 30 */
	effective_of(mi, ms, "/mnt/nfs42", 0, &eff);
	CHECK(KNOWN(eff, ST_OPT_ACTIMEO));
	CHECK_EQ_INT(eff.v[ST_OPT_ACTIMEO], 30);
	CHECK_EQ_INT(eff.v[ST_OPT_RSIZE], 1048576);

	/* IPv6 netid, softerr, noac (which the kernel turns into sync) */
	effective_of(mi, ms, "/mnt/nfs6", 1, &eff);
	CHECK_EQ_INT(eff.v[ST_OPT_VERS], 2); /* "4.1" */
	CHECK_EQ_INT(eff.v[ST_OPT_PROTO], 0);
	CHECK_EQ_INT(eff.v[ST_OPT_HARD], 1);
	CHECK_EQ_INT(eff.v[ST_OPT_AC], 1);
	CHECK_EQ_INT(eff.v[ST_OPT_SYNC], 0);
	CHECK(strncmp(eff.options, "rw,noatime,sync,vers=4.1,", 25) == 0);

	effective_of(mi, ms, "/mnt/stack", 1, &eff);
	CHECK_EQ_INT(eff.v[ST_OPT_VERS], 1); /* "4.0" is choice "4" */
	CHECK_EQ_INT(eff.v[ST_OPT_RSIZE], 131072);

	/* tmpfs on top of NFS: the tmpfs counts */
	effective_of(mi, ms, "/mnt/stack2", 1, &eff);
	CHECK_EQ_INT(st_effective_any(&eff), 0);

	/* NFSv2 is not a choice: no vers, the rest still known */
	st_mount_effective("nfs", "rw", "rw,vers=2,rsize=8192,proto=udp", NULL, &eff);
	CHECK(!KNOWN(eff, ST_OPT_VERS) && KNOWN(eff, ST_OPT_PROTO));
	CHECK_EQ_INT(eff.v[ST_OPT_PROTO], 1);
	CHECK_EQ_INT(eff.v[ST_OPT_VERS], ST_UNSET);
	/* an "nfs" text without vers= is not read as NFS */
	st_mount_effective("nfs", "rw", "rw,rsize=8192", NULL, &eff);
	CHECK_EQ_INT(st_effective_any(&eff), 0);
out:
	free(mi);
	free(ms);
}

static void effective_other(void)
{
	char *mi = unit_slurp("tests/fixtures/mountinfo.txt");
	CHECK(mi != NULL);
	if (!mi)
		return;
	struct st_effective eff;
	effective_of(mi, NULL, "/mnt/stack2", 0, &eff);
	CHECK_EQ_INT(st_effective_any(&eff), 0);
	CHECK(strcmp(eff.options, "rw,relatime,size=2048k,nr_inodes=100,mode=700,inode64") == 0);
	effective_of(mi, NULL, "/", 0, &eff);
	CHECK(strcmp(eff.options, "rw,relatime,errors=remount-ro") == 0);
	/* NFS-looking text on another fstype gives no NFS values */
	st_mount_effective("ext4", "rw", "rw,vers=3,rsize=4096", NULL, &eff);
	CHECK_EQ_INT(st_effective_any(&eff), 0);
	/* read-only anywhere wins; NULLs are fine */
	st_mount_effective("tmpfs", "ro,nosuid", "rw,size=4k", NULL, &eff);
	CHECK(strcmp(eff.options, "ro,nosuid,size=4k") == 0);
	st_mount_effective(NULL, NULL, NULL, NULL, &eff);
	CHECK(strcmp(eff.options, "") == 0 && !st_effective_any(&eff));

	/* longer than eff.options: whole options, then ",..." */
	char big[2048];
	int k = snprintf(big, sizeof(big), "rw");
	for (int i = 0; k < 1500; i++)
		k += snprintf(big + k, sizeof(big) - (size_t)k, ",opt%d=%d", i, i * 1000);
	st_mount_effective("tmpfs", "rw,relatime", big, NULL, &eff);
	size_t len = strlen(eff.options);
	CHECK(len < sizeof(eff.options));
	CHECK(len > 4 && strcmp(eff.options + len - 4, ",...") == 0);
	CHECK(strncmp(eff.options, "rw,relatime,opt0=0,opt1=1000,", 29) == 0);
	free(mi);
}

/* mount.nfs's messages, as the 6.1 guests of the VM lab printed them
 * (LC_ALL=C), to the errno a failed combination stores; the text stays. */
static void errno_of_messages(void)
{
	static const struct {
		const char *text;
		int err;
	} cases[] = {
		{ "mount.nfs: rpc.statd is not running but is required for remote locking. "
		  "mount.nfs: Either use '-o nolock' to keep locks local, or start statd.",
		  ENOLCK },
		{ "mount.nfs: requested NFS version or transport protocol is not supported",
		  EPROTONOSUPPORT },
		{ "mount.nfs: an incorrect mount option was specified", EINVAL },
		{ "mount.nfs: mounting 10.77.212.1:/nonexist failed, reason given by server: No such "
		  "file or directory",
		  ENOENT },
		{ "mount.nfs: access denied by server while mounting 10.77.212.1:/nonexist", EACCES },
		{ "mount.nfs: No route to host", EHOSTUNREACH },
		{ "mount.nfs: Connection timed out", ETIMEDOUT },
		{ "mount.nfs: Connection refused", ECONNREFUSED },
		{ "mount.nfs: /mnt/b is busy or already mounted", EBUSY },
		{ "umount.nfs4: /mnt/b: device is busy", EBUSY },
		{ "mount: /mnt/x: unknown filesystem type 'bogusfs'.", ENODEV },
		{ "mount: /mnt/x: wrong fs type, bad option, bad superblock on tmpfs, missing "
		  "codepage or helper program, or other error.",
		  EINVAL },
		{ "something nobody wrote", EIO },
	};
	for (size_t i = 0; i < ST_ARRAY_LEN(cases); i++) {
		int e = st_mount_errno(cases[i].text);
		if (e != cases[i].err)
			fprintf(stderr, "    '%s': %d, want %d\n", cases[i].text, e, cases[i].err);
		CHECK_EQ_INT(e, cases[i].err);
		/* and the store names it (combo_failure.errno_name), never "E93" */
		char buf[16];
		CHECK(st_errno_name(e, buf, sizeof(buf)) != buf);
	}
	CHECK_EQ_INT(st_mount_errno(NULL), EIO);
}

/* The kernel's overrides, explained: noac forcing sync and actimeo 0, a
 * clamped rsize, and an nconnect inherited from another mount of the same
 * server (two mounts of one guest: /mnt/a with nconnect=2, then /mnt/b
 * without, which the kernel gives nconnect=2 too). */
static void explain_overrides(void)
{
	const char *mi =
		"24 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		"36 24 0:30 / /mnt/a rw,relatime - nfs4 10.77.212.1:/export rw,vers=4.2,rsize=1048576,"
		"wsize=1048576,namlen=255,hard,proto=tcp,nconnect=2,timeo=600,retrans=2,sec=sys,"
		"clientaddr=10.77.212.2,local_lock=none,addr=10.77.212.1\n"
		"37 24 0:31 / /mnt/b rw,relatime - nfs4 10.77.212.1:/export rw,sync,vers=4.2,"
		"rsize=65536,wsize=1048576,namlen=255,acregmin=0,acregmax=0,acdirmin=0,acdirmax=0,"
		"hard,noac,proto=tcp,nconnect=2,timeo=600,retrans=2,sec=sys,clientaddr=10.77.212.2,"
		"local_lock=none,addr=10.77.212.1\n";
	struct st_mountinfo_entry *e = malloc(sizeof(*e));
	CHECK(e && st_mountinfo_find(mi, "/mnt/b", e) == 0);
	if (!e)
		return;
	struct st_effective eff;
	st_mount_effective(e->fstype, e->mount_opts, e->super_opts, NULL, &eff);
	struct st_config cfg;
	st_config_defaults(&cfg);
	cfg_set(&cfg, ST_OPT_MOUNT, "10.77.212.1:/export");
	cfg_set(&cfg, ST_OPT_SYNC, "async");
	cfg_set(&cfg, ST_OPT_AC, "noac");
	cfg_set(&cfg, ST_OPT_ACTIMEO, "30");
	cfg_set(&cfg, ST_OPT_RSIZE, "64k");
	cfg_set(&cfg, ST_OPT_WSIZE, "2m");
	struct st_combo c;
	st_plan_combo(&cfg, 0, &c);
	st_mount_explain(&c, mi, e, &eff);
	CHECK(strstr(eff.note, "sync: noac makes the kernel write synchronously"));
	CHECK(strstr(eff.note, "actimeo: noac sets every attribute cache time to 0"));
	CHECK(strstr(eff.note, "wsize: 2097152 asked, 1048576 granted"));
	CHECK(!strstr(eff.note, "rsize:")); /* 64k asked, 64k granted */
	CHECK(strstr(eff.note, "nconnect: 2, not 1: the kernel shares one client per server and "
			       "version, and the mount of 10.77.212.1:/export on /mnt/a made it"));
	/* what was asked and granted alike: nothing to say */
	struct st_effective same;
	st_mountinfo_find(mi, "/mnt/a", e);
	st_mount_effective(e->fstype, e->mount_opts, e->super_opts, NULL, &same);
	struct st_config c2;
	st_config_defaults(&c2);
	cfg_set(&c2, ST_OPT_NCONNECT, "2");
	st_plan_combo(&c2, 0, &c);
	st_mount_explain(&c, mi, e, &same);
	CHECK(same.note[0] == '\0');
	free(e);
}

/* ---- the cache drop's choice, on recorded mount tables ---- */

/* How the system answers the steps of one cache drop (as the adapter
 * would find out): the umount, the mount on top after a refused umount,
 * the other namespaces (the text of one of them, looked at as the adapter
 * looks: a copy showing the device is a holder, pid 4242), the mount. */
struct drop_answers {
	int umount_rc;
	const char *umount_msg;
	int top_after;
	const char *other_ns; /* another namespace's mountinfo; NULL: unreadable (-EACCES) */
	int mount_rc;
	const char *mount_msg;
};

/* st_drop_decide until it is done, each step answered from a: the steps
 * it asked for, as letters (U umount, R recheck, L look, M mount). */
static void drop_run(const char *mi, const char *target, int remount, int ours,
		     const struct drop_answers *a, struct st_drop_choice *c, char steps[8])
{
	struct st_drop_seen s = { .target = target, .remount = remount, .ours = ours,
				  .mountinfo = mi, .umount_rc = ST_DROP_UNKNOWN,
				  .top_after = ST_DROP_UNKNOWN, .holder = ST_DROP_UNKNOWN,
				  .mount_rc = ST_DROP_UNKNOWN };
	int k = 0;
	for (enum st_drop_step step; (step = st_drop_decide(&s, c)) != ST_DROP_DONE && k < 7;) {
		if (step == ST_DROP_UMOUNT) {
			steps[k++] = 'U';
			s.umount_rc = a->umount_rc;
			s.umount_msg = a->umount_msg;
		} else if (step == ST_DROP_RECHECK) {
			steps[k++] = 'R';
			s.top_after = a->top_after;
		} else if (step == ST_DROP_LOOK) {
			steps[k++] = 'L';
			s.holder = !a->other_ns ? -EACCES
				   : st_mountinfo_dev_count(a->other_ns, c->major, c->minor, -1) > 0 ? 4242
												       : 0;
		} else {
			steps[k++] = 'M';
			s.mount_rc = a->mount_rc;
			s.mount_msg = a->mount_msg;
		}
	}
	steps[k] = '\0';
}

/* The choice c, as README and the stored rows say it: method, the steps
 * taken, and the reason, word for word. */
static void check_choice(const struct st_drop_choice *c, const char *steps, int rc,
			 const char *method, const char *want_steps, const char *reason)
{
	if (c->rc != rc || strcmp(c->method, method) || strcmp(steps, want_steps) ||
	    strcmp(c->reason, reason))
		fprintf(stderr, "    rc %d method %s steps '%s' reason '%s'\n    want %d %s '%s' '%s'\n",
			c->rc, c->method, steps, c->reason, rc, method, want_steps, reason);
	CHECK_EQ_INT(c->rc, rc);
	CHECK(strcmp(c->method, method) == 0);
	CHECK(strcmp(steps, want_steps) == 0);
	CHECK(strcmp(c->reason, reason) == 0);
	CHECK_EQ_INT(c->drop_host, strstr(method, "drop_caches") != NULL);
}

/* Every branch of the choice, on mount tables read on this machine (an
 * ext4 on a loop device, the copies a private and a slave namespace kept
 * after its umount; tests/fixtures/README): no root, no mount, no /proc.
 * The targets do not exist here: nothing but the text is looked at. */
static void drop_choice(void)
{
	char *mi = unit_slurp("tests/fixtures/mountinfo-drop.txt");
	char *priv = unit_slurp("tests/fixtures/mountinfo-copy-private.txt");
	char *slave = unit_slurp("tests/fixtures/mountinfo-copy-slave.txt");
	CHECK(mi && priv && slave);
	if (!mi || !priv || !slave)
		goto out;
	/* the copies: a private one keeps the loop device, a slave one lost it */
	CHECK_EQ_INT(st_mountinfo_dev_count(priv, 7, 0, -1), 1);
	CHECK_EQ_INT(st_mountinfo_dev_count(slave, 7, 0, -1), 0);
	CHECK_EQ_INT(st_mountinfo_dev_count(mi, 7, 1, -1), 2); /* /mnt/shared and its bind */
	CHECK_EQ_INT(st_mountinfo_dev_count(mi, 7, 1, 100), 1);
	CHECK_EQ_INT(st_mountinfo_dev_count(slave, 254, 0, -1), 1); /* master: fields read */

	const struct drop_answers ok = { .other_ns = slave };
	struct st_drop_choice c, again;
	char steps[8];
	drop_run(mi, "/mnt/bench", 0, -1, &ok, &c, steps);
	check_choice(&c, steps, 0, "drop_caches", "",
		     "not remounted: stcluster did not mount /mnt/bench (no --mount)");
	drop_run(mi, "/mnt/none", 1, -1, &ok, &c, steps);
	check_choice(&c, steps, -EINVAL, "none", "", "/mnt/none is not a mount point: nothing to remount");
	drop_run(mi, "/mnt/ram", 1, -1, &ok, &c, steps);
	check_choice(&c, steps, 0, "none", "",
		     "tmpfs on /mnt/ram: a remount would discard its files, and its pages are not a cache");

	/* a remount cycle; the slave copy went with the umount */
	drop_run(mi, "/mnt/bench", 1, 99, &ok, &c, steps);
	check_choice(&c, steps, 0, "remount", "ULM",
		     "remounted (a new superblock: nothing of /mnt/bench cached); no drop_caches, "
		     "which would empty every cache of the host");
	CHECK(c.major == 7 && c.minor == 0);
	/* the private copy kept it */
	const struct drop_answers kept = { .other_ns = priv };
	drop_run(mi, "/mnt/bench", 1, -1, &kept, &c, steps);
	check_choice(&c, steps, 0, "remount+drop_caches", "ULM",
		     "remounted, and drop_caches too: the mount namespace of pid 4242 still showed "
		     "device 7:0 after the umount (its copy keeps the superblock and its cache)");
	const struct drop_answers unread = { .other_ns = NULL };
	drop_run(mi, "/mnt/bench", 1, 99, &unread, &c, steps);
	check_choice(&c, steps, 0, "remount+drop_caches", "ULM",
		     "remounted, and drop_caches too: other mount namespaces could not be read for "
		     "device 7:0 (Permission denied), and a copy there would keep its cache");
	/* a bind mount shares the superblock: both, without looking elsewhere */
	drop_run(mi, "/mnt/shared", 1, 100, &ok, &c, steps);
	check_choice(&c, steps, 0, "remount+drop_caches", "UM",
		     "remounted, and drop_caches too: another mount shows device 7:1 (a shared "
		     "superblock keeps its cache)");

	/* busy: the umount refused, the same mount on top */
	const char *busy_msg = "umount: /mnt/bench: target is busy.";
	const struct drop_answers busy = { .umount_rc = -EBUSY, .umount_msg = busy_msg,
					   .top_after = 99, .other_ns = slave };
	drop_run(mi, "/mnt/bench", 1, 99, &busy, &c, steps);
	check_choice(&c, steps, 0, "drop_caches", "UR",
		     "not remounted (umount: /mnt/bench: target is busy.); dropped the host's caches");
	/* refused, and the mount on top is another now: the umount's error */
	const struct drop_answers moved = { .umount_rc = -EBUSY, .umount_msg = busy_msg,
					    .top_after = 0, .other_ns = slave };
	drop_run(mi, "/mnt/bench", 1, 99, &moved, &c, steps);
	check_choice(&c, steps, -EBUSY, "none", "UR", busy_msg);
	/* unmounted, then the mount failed: that error, nothing dropped */
	const struct drop_answers lost = { .other_ns = slave, .mount_rc = -ETIMEDOUT,
					   .mount_msg = "mount.nfs: Connection timed out" };
	drop_run(mi, "/mnt/bench", 1, 99, &lost, &c, steps);
	check_choice(&c, steps, -ETIMEDOUT, "none", "ULM", "mount.nfs: Connection timed out");

	/* --mount-over: stcluster's NFS mount (103) over the user's tmpfs (102) */
	drop_run(mi, "/mnt/over", 1, 103, &ok, &c, steps);
	check_choice(&c, steps, 0, "remount", "ULM",
		     "remounted (a new superblock: nothing of /mnt/over cached); no drop_caches, "
		     "which would empty every cache of the host");
	CHECK(c.major == 0 && c.minor == 53);
	/* a mount on top that is not stcluster's is never unmounted: over
	 * stcluster's (102 here), or with stcluster's gone */
	drop_run(mi, "/mnt/over/", 1, 102, &ok, &c, steps);
	check_choice(&c, steps, 0, "drop_caches", "",
		     "not remounted: the mount on /mnt/over/ (id 103) is not stcluster's (whose mount, "
		     "id 102, it covers); dropped the host's caches");
	drop_run(mi, "/mnt/over", 1, 77, &ok, &c, steps);
	check_choice(&c, steps, 0, "drop_caches", "",
		     "not remounted: the mount on /mnt/over (id 103) is not stcluster's (whose mount "
		     "is gone); dropped the host's caches");
	drop_run(mi, "/mnt/over", 1, 0, &ok, &c, steps);
	check_choice(&c, steps, 0, "drop_caches", "",
		     "not remounted: the mount on /mnt/over (id 103) is not stcluster's (which has "
		     "none there); dropped the host's caches");

	/* a function of what was read: the same question, the same answer */
	struct st_drop_seen s = { .target = "/mnt/bench", .remount = 1, .ours = 99, .mountinfo = mi,
				  .umount_rc = 0, .top_after = ST_DROP_UNKNOWN, .holder = 0,
				  .mount_rc = ST_DROP_UNKNOWN };
	CHECK(st_drop_decide(&s, &c) == ST_DROP_MOUNT);
	CHECK(st_drop_decide(&s, &again) == ST_DROP_MOUNT);
	CHECK(memcmp(&c, &again, sizeof(c)) == 0);
out:
	free(mi);
	free(priv);
	free(slave);
}

/* ---- the adapter, for real ---- */

static void refusals(void)
{
	char msg[ST_ERR_MAX], method[32];
	char dir[PATH_MAX], mnt[PATH_MAX + 8], up[PATH_MAX + 16];
	st_copy(dir, sizeof(dir), unit_tmpdir());
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	CHECK(mkdir(mnt, 0755) == 0);
	CHECK_EQ_INT(st_mount_apply("x", "tmpfs", "", "/", 0, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "root"));
	snprintf(up, sizeof(up), "%s/../../../../../../../..", dir);
	CHECK_EQ_INT(st_mount_apply("x", "tmpfs", "", up, 0, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_INT(st_mount_apply("x", "tmpfs", "", "mnt", 0, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "absolute"));
	CHECK_EQ_INT(st_mount_apply("x", "tmpfs", "", NULL, 0, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_INT(st_umount("/", msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_INT(st_drop_caches("/", NULL, NULL, NULL, -1, method, sizeof(method), msg, sizeof(msg)),
		     -EINVAL);
	CHECK(strcmp(method, "none") == 0);
	CHECK_EQ_INT(st_drop_caches("rel", NULL, NULL, NULL, -1, method, sizeof(method), msg, sizeof(msg)),
		     -EINVAL);
	/* mount(8) would take a leading '-' as an option */
	CHECK_EQ_INT(st_mount_apply("-oremount", "tmpfs", "", mnt, 0, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_INT(st_mount_apply("x", "-n", "", mnt, 0, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_INT(st_mount_apply("x", "tmpfs", "", "/nonexistent/stcluster", 0, msg, sizeof(msg)),
		     -ENOENT);

	if (!is_root()) {
		CHECK(!"root");
		rmdir(mnt);
		rmdir(dir);
		return;
	}
	/* not a mount point: nothing to unmount, nothing to remount */
	CHECK_EQ_INT(st_umount(mnt, msg, sizeof(msg)), -EINVAL);
	CHECK_EQ_INT(st_mount_apply(NULL, NULL, "size=1m", mnt, 1, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "not a mount point"));
	CHECK_EQ_INT(st_drop_caches(mnt, "x", "tmpfs", "", -1, method, sizeof(method), msg, sizeof(msg)),
		     -EINVAL);
	/* mount(8)'s own message comes back, with an errno guessed from it */
	int rc = st_mount_apply("none", "bogusfs", "", mnt, 0, msg, sizeof(msg));
	CHECK_EQ_INT(rc, -ENODEV);
	CHECK(strstr(msg, "unknown filesystem type 'bogusfs'") && !strchr(msg, '\n'));
	rc = st_mount_apply("stcluster-unit", "tmpfs", "nr_inodes=banana", mnt, 0, msg, sizeof(msg));
	CHECK(rc < 0 && rc != -EPERM);
	CHECK(strstr(msg, "mount"));
	CHECK_EQ_INT(mounts_on(mnt), 0);
	unmount_all(mnt);
	CHECK(rmdir(mnt) == 0);
	CHECK(rmdir(dir) == 0);
}

static void tmpfs_cycle(void)
{
	if (!is_root()) {
		CHECK(!"root");
		return;
	}
	char msg[ST_ERR_MAX], method[32];
	char dir[PATH_MAX], mnt[PATH_MAX + 8], path[PATH_MAX + 16], sub[PATH_MAX + 16];
	st_copy(dir, sizeof(dir), unit_tmpdir());
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	CHECK(mkdir(mnt, 0755) == 0);
	const char *src = "stcluster-unit";

	int rc = st_mount_apply(src, "tmpfs", "size=1m", mnt, 0, msg, sizeof(msg));
	report_mount_rc("mount tmpfs size=1m", rc, msg);
	CHECK_EQ_INT(rc, 0);
	if (rc)
		goto out;
	CHECK_EQ_INT(mounts_on(mnt), 1);
	snprintf(path, sizeof(path), "%s/a", mnt);
	CHECK_EQ_INT(write_file(path, 4096, 1), 0);

	/* a full cycle: a new superblock, so the old file is gone */
	rc = st_mount_apply(src, "tmpfs", "size=2m,mode=0700", mnt, 0, msg, sizeof(msg));
	report_mount_rc("remount tmpfs size=2m,mode=0700", rc, msg);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(mounts_on(mnt), 1); /* replaced, not stacked */
	CHECK(access(path, F_OK) != 0);
	struct stat st;
	CHECK(stat(mnt, &st) == 0 && (st.st_mode & 07777) == 0700);
	snprintf(path, sizeof(path), "%s/b", mnt);
	CHECK_EQ_INT(write_file(path, 8192, 2), 0);

	/* in place: the file stays, nr_inodes joins size and mode */
	rc = st_mount_apply(NULL, NULL, "nr_inodes=100", mnt, 1, msg, sizeof(msg));
	report_mount_rc("mount -o remount,nr_inodes=100", rc, msg);
	CHECK_EQ_INT(rc, 0);
	CHECK(file_matches(path, 8192, 2));

	struct st_effective eff;
	rc = st_mount_read_effective(mnt, "tmpfs", NULL, &eff, msg, sizeof(msg));
	report_mount_rc("read effective", rc, msg);
	CHECK_EQ_INT(rc, 0);
	CHECK(strstr(eff.options, "size=2048k"));
	CHECK(strstr(eff.options, "mode=700"));
	CHECK(strstr(eff.options, "nr_inodes=100"));
	CHECK_EQ_INT(st_effective_any(&eff), 0);
	if (!strstr(eff.options, "nr_inodes=100"))
		fprintf(stderr, "    effective: %s\n", eff.options);

	/* a directory inside the mount reads the same mount */
	snprintf(sub, sizeof(sub), "%s/sub", mnt);
	CHECK(mkdir(sub, 0700) == 0);
	struct st_effective eff2;
	CHECK_EQ_INT(st_mount_read_effective(sub, NULL, NULL, &eff2, msg, sizeof(msg)), 0);
	CHECK(strcmp(eff.options, eff2.options) == 0);
	/* --fstype nfs but tmpfs there: the mount is not what was asked for */
	CHECK_EQ_INT(st_mount_read_effective(mnt, "nfs", NULL, &eff2, msg, sizeof(msg)), -EMEDIUMTYPE);
	CHECK(strstr(msg, "tmpfs") && strstr(msg, "nfs"));
	rmdir(sub);

	/* tmpfs: a remount would lose the files, so nothing is done */
	rc = st_drop_caches(mnt, src, "tmpfs", "size=2m,mode=0700", -1, method, sizeof(method), msg,
			    sizeof(msg));
	CHECK_EQ_INT(rc, 0);
	CHECK(strcmp(method, "none") == 0);
	CHECK(strstr(msg, "tmpfs"));
	CHECK(file_matches(path, 8192, 2));
	/* without --mount: the host's caches */
	rc = st_drop_caches(mnt, NULL, NULL, NULL, -1, method, sizeof(method), msg, sizeof(msg));
	report_mount_rc("drop_caches", rc, msg);
	CHECK_EQ_INT(rc, 0);
	CHECK(strcmp(method, "drop_caches") == 0);
	CHECK(file_matches(path, 8192, 2));

	/* another mount stacked on top (by hand): effective options are the top
	 * one's, and one umount removes only it */
	char *argv[] = { "mount", "-t", "tmpfs", "-o", "size=4k", "stacked", mnt, NULL };
	CHECK_EQ_INT(run(access("/usr/bin/mount", X_OK) == 0 ? "/usr/bin/mount" : "/bin/mount", argv),
		     0);
	CHECK_EQ_INT(mounts_on(mnt), 2);
	CHECK_EQ_INT(st_mount_read_effective(mnt, "tmpfs", NULL, &eff, msg, sizeof(msg)), 0);
	CHECK(strstr(eff.options, "size=4k") && !strstr(eff.options, "nr_inodes=100"));
	CHECK(access(path, F_OK) != 0);
	CHECK_EQ_INT(st_umount(mnt, msg, sizeof(msg)), 0);
	CHECK_EQ_INT(mounts_on(mnt), 1);
	CHECK(file_matches(path, 8192, 2));

	CHECK_EQ_INT(st_umount(mnt, msg, sizeof(msg)), 0);
	CHECK_EQ_INT(st_umount(mnt, msg, sizeof(msg)), -EINVAL);
out:
	unmount_all(mnt);
	CHECK_EQ_INT(mounts_on(mnt), 0);
	CHECK_EQ_INT(mounts_naming(dir), 0);
	CHECK(rmdir(mnt) == 0);
	CHECK(rmdir(dir) == 0);
}

/* A child that holds a copy of the caller's mounts in a mount namespace of
 * its own until *release is closed: its pid, or -1. With slave, its copies
 * are slaves (an umount here reaches them, as it does systemd's services'
 * namespaces); else they keep the caller's propagation. */
static pid_t namespace_copy(int *release, int slave)
{
	int ready[2], hold[2];
	if (pipe(ready) < 0)
		return -1;
	if (pipe(hold) < 0) {
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]);
		char c = unshare(CLONE_NEWNS) == 0 &&
				 (!slave || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == 0)
			 ? 'y'
			 : 'n';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		while (read(hold[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	char c = 'n';
	if (pid < 0 || read(ready[0], &c, 1) != 1 || c != 'y') {
		close(hold[1]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		pid = -1;
	} else {
		*release = hold[1];
	}
	close(ready[0]);
	return pid;
}

/* Drop the caches of mnt (ext4 on img, data in path, len bytes of pattern
 * 3) while a child holds a copy of the mount, a slave one or a private one
 * (namespace_copy): the method each calls for, every page dropped, and the
 * data still there. */
static void drop_beside_a_copy(const char *mnt, const char *img, const char *path, size_t len,
			       int slave)
{
	int release = -1;
	pid_t copy = namespace_copy(&release, slave);
	CHECK(copy > 0);
	if (copy <= 0)
		return;
	char msg[ST_ERR_MAX], method[32], want[64] = "";
	int rc = st_drop_caches(mnt, img, "ext4", "loop", -1, method, sizeof(method), msg, sizeof(msg));
	report_mount_rc(slave ? "drop caches beside a slave copy" : "drop caches beside a private copy",
			rc, msg);
	CHECK_EQ_INT(rc, 0);
	const char *want_method = slave ? "remount" : "remount+drop_caches";
	if (!slave)
		snprintf(want, sizeof(want), "namespace of pid %ld ", (long)copy);
	if (strcmp(method, want_method) != 0 || !strstr(msg, want))
		fprintf(stderr, "    method %s: %s\n", method, msg);
	CHECK(strcmp(method, want_method) == 0);
	CHECK(strstr(msg, want));
	CHECK_EQ_INT(resident_pages(path), 0);
	close(release);
	CHECK(waitpid(copy, NULL, 0) == copy);
	CHECK(file_matches(path, len, 3));
	CHECK(resident_pages(path) > 0);
}

static void ext4_drop_caches_here(void);

/* ext4 on a loop device: caches that a remount and drop_caches really
 * empty. In a private mount namespace of the test's own, so that no other
 * process's new namespace (ganesha's private one, tests/lab/ganesha.sh, in a
 * lab test running alongside) copies the mount and keeps its superblock
 * alive; that case is made on purpose inside. */
static void ext4_drop_caches(void)
{
	if (!is_root()) {
		CHECK(!"root");
		return;
	}
	/* setns puts the caller at the namespace's root: cwd is kept by hand */
	int home = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(home >= 0 && cwd >= 0);
	if (home < 0 || cwd < 0) {
		if (home >= 0)
			close(home);
		if (cwd >= 0)
			close(cwd);
		return;
	}
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		fprintf(stderr, "    a private mount namespace: %s\n", strerror(errno));
		CHECK(!"a private mount namespace");
	} else {
		ext4_drop_caches_here();
	}
	CHECK(setns(home, CLONE_NEWNS) == 0);
	CHECK(fchdir(cwd) == 0);
	close(home);
	close(cwd);
}

static void ext4_drop_caches_here(void)
{
	char msg[ST_ERR_MAX], method[32];
	char dir[PATH_MAX], img[PATH_MAX + 16], mnt[PATH_MAX + 16], path[PATH_MAX + 32];
	st_copy(dir, sizeof(dir), unit_tmpdir());
	snprintf(img, sizeof(img), "%s/fs.img", dir);
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(path, sizeof(path), "%s/data", mnt);
	CHECK(mkdir(mnt, 0755) == 0);
	int fd = open(img, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 32 << 20) == 0);
	if (fd >= 0)
		close(fd);
	const char *mkfs = access("/usr/sbin/mkfs.ext4", X_OK) == 0 ? "/usr/sbin/mkfs.ext4"
								     : "/sbin/mkfs.ext4";
	char *argv[] = { "mkfs.ext4", "-q", "-F", img, NULL };
	int rc = run(mkfs, argv);
	if (rc != 0)
		fprintf(stderr, "    %s -q -F %s: status %d (e2fsprogs is needed)\n", mkfs, img, rc);
	CHECK_EQ_INT(rc, 0);
	rc = st_mount_apply(img, "ext4", "loop", mnt, 0, msg, sizeof(msg));
	report_mount_rc("mount -o loop ext4", rc, msg);
	CHECK_EQ_INT(rc, 0);
	if (rc)
		goto out;

	const size_t len = 4 << 20;
	CHECK_EQ_INT(write_file(path, len, 3), 0);
	CHECK(file_matches(path, len, 3));
	long before = resident_pages(path);
	CHECK(before > 0);

	rc = st_drop_caches(mnt, img, "ext4", "loop", -1, method, sizeof(method), msg, sizeof(msg));
	report_mount_rc("drop caches by remount", rc, msg);
	CHECK_EQ_INT(rc, 0);
	CHECK(strcmp(method, "remount") == 0);
	long after = resident_pages(path);
	if (after != 0)
		fprintf(stderr, "    resident pages: %ld before, %ld after the remount\n", before, after);
	CHECK_EQ_INT(after, 0);
	CHECK(file_matches(path, len, 3));
	CHECK(resident_pages(path) > 0);

	/* a slave copy in another process's namespace goes with the umount (as
	 * on a systemd host, whose mounts are shared: an umount reaches the
	 * copies under the parent's peers and slaves): a plain remount still
	 * empties the cache */
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_SHARED, NULL) == 0);
	drop_beside_a_copy(mnt, img, path, len, 1);
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0);
	/* a private copy (ganesha's, under unshare --mount --propagation
	 * private) keeps the superblock and its pages across the umount: named,
	 * and drop_caches too */
	drop_beside_a_copy(mnt, img, path, len, 0);

	/* busy (an open directory on it): umount refused, drop_caches instead */
	int busy = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(busy >= 0);
	rc = st_drop_caches(mnt, img, "ext4", "loop", -1, method, sizeof(method), msg, sizeof(msg));
	report_mount_rc("drop caches while busy", rc, msg);
	CHECK_EQ_INT(rc, 0);
	CHECK(strcmp(method, "drop_caches") == 0);
	CHECK(strstr(msg, "busy"));
	CHECK_EQ_INT(resident_pages(path), 0);
	if (busy >= 0)
		close(busy);

	/* a mount on top that is not stcluster's (its id is not ours): never
	 * unmounted, drop_caches instead */
	CHECK(file_matches(path, len, 3));
	rc = st_drop_caches(mnt, img, "ext4", "loop", INT_MAX, method, sizeof(method), msg,
			    sizeof(msg));
	report_mount_rc("drop caches, not stcluster's mount", rc, msg);
	CHECK_EQ_INT(rc, 0);
	CHECK(strcmp(method, "drop_caches") == 0);
	CHECK(strstr(msg, "is not stcluster's"));
	CHECK_EQ_INT(resident_pages(path), 0);
	CHECK_EQ_INT(mounts_on(mnt), 1);

	struct st_effective eff;
	CHECK_EQ_INT(st_mount_read_effective(mnt, "ext4", NULL, &eff, msg, sizeof(msg)), 0);
	CHECK(strncmp(eff.options, "rw,", 3) == 0 && !st_effective_any(&eff));

	/* a remount whose mount(8) exits 0 and mounts nothing (the kernel gave
	 * back a mount it had): the drop fails with that reason, never a
	 * "remount" that leaves the bare directory to read. mount(8) is a
	 * script that only exits 0, bound over it in this private namespace */
	char fake[PATH_MAX + 16];
	snprintf(fake, sizeof(fake), "%s/fake-mount", dir);
	fd = open(fake, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	CHECK(fd >= 0 && write(fd, "#!/bin/sh\nexit 0\n", 18) == 18);
	if (fd >= 0)
		close(fd);
	const char *tool = access("/usr/bin/mount", X_OK) == 0 ? "/usr/bin/mount" : "/bin/mount";
	CHECK(mount(fake, tool, NULL, MS_BIND, NULL) == 0);
	rc = st_drop_caches(mnt, img, "ext4", "loop", -1, method, sizeof(method), msg, sizeof(msg));
	CHECK(umount2(tool, 0) == 0);
	unlink(fake);
	if (rc != -EEXIST || !strstr(msg, "mount(8) exited 0 but mounted nothing"))
		fprintf(stderr, "    a remount that mounted nothing: %d %s: %s\n", rc, method, msg);
	CHECK_EQ_INT(rc, -EEXIST);
	CHECK(strstr(msg, "mount(8) exited 0 but mounted nothing") != NULL);
	CHECK_EQ_INT(mounts_on(mnt), 0);
	rc = st_mount_apply(img, "ext4", "loop", mnt, 0, msg, sizeof(msg));
	CHECK_EQ_INT(rc, 0);
	CHECK(file_matches(path, len, 3));

	CHECK_EQ_INT(st_umount(mnt, msg, sizeof(msg)), 0);
out:
	unmount_all(mnt);
	CHECK_EQ_INT(mounts_naming(dir), 0);
	unlink(img);
	CHECK(rmdir(mnt) == 0);
	CHECK(rmdir(dir) == 0);
}

/* The mount driver's state on a target that is already a mount point
 * (--mount-over): refused by default; mounted over; each combination
 * replaces only stcluster's mount; at the end the one below is back, the
 * same mount with its files and options. */
static void mount_over_and_restore(void)
{
	if (!is_root()) {
		CHECK(!"root");
		return;
	}
	char msg[ST_ERR_MAX];
	char dir[PATH_MAX], mnt[PATH_MAX + 8], path[PATH_MAX + 16];
	st_copy(dir, sizeof(dir), unit_tmpdir());
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(path, sizeof(path), "%s/keep", mnt);
	CHECK(mkdir(mnt, 0755) == 0);
	CHECK_EQ_INT(st_mount_check_target(mnt, 0, msg, sizeof(msg)), 0);
	/* a mount that was there before (by hand), with a file of the user's */
	char *argv[] = { "mount", "-t", "tmpfs", "-o", "size=4m,mode=0751", "users-own", mnt, NULL };
	CHECK_EQ_INT(run(access("/usr/bin/mount", X_OK) == 0 ? "/usr/bin/mount" : "/bin/mount", argv),
		     0);
	CHECK_EQ_INT(write_file(path, 4096, 9), 0);
	char *before = unit_slurp("/proc/self/mountinfo");
	struct st_mountinfo_entry *e0 = malloc(sizeof(*e0)), *e1 = malloc(sizeof(*e1));
	CHECK(e0 && e1 && st_mountinfo_find(before, mnt, e0) == 0);
	CHECK_EQ_INT(st_mount_check_target(mnt, 0, msg, sizeof(msg)), -EBUSY);
	CHECK(strstr(msg, "already a mount point (tmpfs users-own") && strstr(msg, "--mount-over"));
	CHECK_EQ_INT(st_mount_check_target(mnt, 1, msg, sizeof(msg)), 0);

	struct st_mount_state s = { .our_id = 0 };
	int rc = st_mount_take(&s, "stcluster-unit", "tmpfs", "size=1m", mnt, msg, sizeof(msg));
	report_mount_rc("mount over", rc, msg);
	CHECK_EQ_INT(rc, 0);
	CHECK(s.below_id == e0->mount_id && s.our_id > 0 && s.our_id != s.below_id);
	CHECK_EQ_INT(mounts_on(mnt), 2);
	CHECK(access(path, F_OK) != 0); /* covered */
	rc = st_mount_take(&s, "stcluster-unit", "tmpfs", "size=2m", mnt, msg, sizeof(msg));
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(mounts_on(mnt), 2); /* stcluster's replaced; the user's kept below */
	CHECK(s.our_id > 0 && s.our_id != s.below_id); /* (ids are reused: maybe first's) */
	CHECK(s.added[0] == '\0');
	/* a failed mount leaves nothing of stcluster's; the one below stays */
	rc = st_mount_take(&s, "stcluster-unit", "tmpfs", "nr_inodes=banana", mnt, msg, sizeof(msg));
	CHECK(rc < 0 && s.our_id == 0);
	CHECK_EQ_INT(mounts_on(mnt), 1);
	rc = st_mount_take(&s, "stcluster-unit", "tmpfs", "size=1m", mnt, msg, sizeof(msg));
	CHECK_EQ_INT(rc, 0);
	/* the end of the run: the user's mount is back, as it was */
	CHECK_EQ_INT(st_mount_release(&s, 0, msg, sizeof(msg)), 0);
	CHECK_EQ_INT(s.our_id, 0);
	CHECK_EQ_INT(st_mount_release(&s, 0, msg, sizeof(msg)), 0); /* nothing left: fine */
	char *after = unit_slurp("/proc/self/mountinfo");
	CHECK(after && st_mountinfo_find(after, mnt, e1) == 0);
	CHECK(e1->mount_id == e0->mount_id && !strcmp(e1->super_opts, e0->super_opts) &&
	      !strcmp(e1->mount_opts, e0->mount_opts) && !strcmp(e1->source, "users-own"));
	CHECK(file_matches(path, 4096, 9));
	/* the abort path: a lazy detach, which needs no answer from anyone */
	CHECK_EQ_INT(st_mount_take(&s, "stcluster-unit", "tmpfs", "size=1m", mnt, msg, sizeof(msg)), 0);
	CHECK_EQ_INT(mounts_on(mnt), 2);
	CHECK_EQ_INT(st_mount_release(&s, 1, msg, sizeof(msg)), 0);
	CHECK_EQ_INT(mounts_on(mnt), 1);
	CHECK(file_matches(path, 4096, 9));
	/* a mount on top that is not stcluster's is never taken away */
	CHECK_EQ_INT(st_mount_take(&s, "stcluster-unit", "tmpfs", "size=1m", mnt, msg, sizeof(msg)), 0);
	char *argv2[] = { "mount", "-t", "tmpfs", "-o", "size=1m", "someone-else", mnt, NULL };
	CHECK_EQ_INT(run(access("/usr/bin/mount", X_OK) == 0 ? "/usr/bin/mount" : "/bin/mount", argv2),
		     0);
	CHECK_EQ_INT(st_mount_release(&s, 0, msg, sizeof(msg)), -EBUSY);
	CHECK_EQ_INT(st_mount_take(&s, "stcluster-unit", "tmpfs", "size=1m", mnt, msg, sizeof(msg)),
		     -EBUSY);
	CHECK_EQ_INT(mounts_on(mnt), 3);
	free(before);
	free(after);
	free(e0);
	free(e1);
	unmount_all(mnt);
	CHECK_EQ_INT(mounts_on(mnt), 0);
	CHECK(rmdir(mnt) == 0);
	CHECK(rmdir(dir) == 0);
}

/* The system's own places, from the path and the mount that holds it. */
static void system_paths(void)
{
	/* /run/netns: a bind of a directory of the root file system (ip-netns);
	 * /dev/shm a tmpfs of its own, bound again on /tmp/shm */
	static const char mi[] =
		"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
		"25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw\n"
		"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
		"45 27 254:0 /run/netns /run/netns rw,relatime shared:1 - ext4 /dev/vda rw\n"
		"60 27 0:23 / /tmp/shm rw,relatime - tmpfs tmpfs rw\n"
		"61 27 0:21 / /tmp/p rw,relatime - proc proc rw\n";
	struct st_mountinfo_entry *root = calloc(1, sizeof(*root)), *shm = calloc(1, sizeof(*shm)),
				  *proc = calloc(1, sizeof(*proc));
	CHECK(root && shm && proc);
	if (!root || !shm || !proc)
		return;
	CHECK(st_mountinfo_find_id(mi, 27, root) == 0 && st_mountinfo_find_id(mi, 60, shm) == 0 &&
	      st_mountinfo_find_id(mi, 61, proc) == 0);
	static const struct {
		const char *path;
		int holder; /* 0 the root file system, 1 the bind of /dev/shm, 2 proc on /tmp/p */
		int mounting, refused;
		const char *why;
	} cases[] = {
		{ "/", 0, 1, 1, "/ is the root directory" },
		{ "/", 0, 0, 1, "/ is the root directory" },
		{ "/proc", 0, 1, 1, "/proc is the system's own" },
		{ "/proc/sys", 0, 1, 1, "/proc/sys is under /proc, the system's own" },
		{ "/proc/sys", 0, 0, 1, "/proc/sys is under /proc" },
		{ "/sys", 0, 0, 1, "/sys is the system's own" },
		{ "/sys/fs/cgroup", 0, 1, 1, "under /sys" },
		{ "/dev/shm", 0, 1, 1, "/dev/shm is under /dev" },
		{ "/dev/shm", 0, 0, 1, "under /dev" },
		{ "/run", 0, 1, 1, "/run is the system's own" },
		{ "/run/user/0", 0, 1, 1, "under /run" },
		{ "/boot", 0, 1, 1, "/boot is the system's own" },
		{ "/etc", 0, 1, 1, "/etc is the system's own" },
		{ "/usr/lib", 0, 1, 1, "/usr/lib is under /usr" },
		{ "/var", 0, 1, 1, "/var is the system's own" },
		{ "/var/lib/nfs", 0, 1, 1, "/var/lib/nfs is under /var" },
		{ "/tmp/p", 2, 1, 1, "/tmp/p is on a proc file system (mounted on /tmp/p), the kernel's" },
		{ "/tmp/p/sys", 2, 0, 1, "on a proc file system" },
		{ "/tmp/shm", 1, 1, 1, "/tmp/shm is on the file system mounted on /dev/shm" },
		/* allowed: a place of one's own, and without a mount what is not the kernel's */
		{ "/tmp/shm", 1, 0, 0, "" },
		{ "/run/user/0", 0, 0, 0, "" },
		{ "/etc", 0, 0, 0, "" },
		{ "/var/tmp", 0, 1, 0, "" },
		{ "/var/tmp/bench", 0, 1, 0, "" },
		{ "/var/mnt/nfs", 0, 1, 0, "" },
		{ "/var/home/me/d", 0, 1, 0, "" },
		{ "/varx", 0, 1, 0, "" },
		{ "/procfs", 0, 1, 0, "" },
		{ "/devices", 0, 1, 0, "" },
		{ "/mnt/nfs", 0, 1, 0, "" },
		{ "/tmp/run/netns", 0, 1, 0, "" }, /* the root fs, bound on /run/netns: not whole */
	};
	const struct st_mountinfo_entry *holders[] = { root, shm, proc };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[ST_ERR_MAX] = "";
		int got = st_mount_system_path(cases[i].path, cases[i].mounting,
					       holders[cases[i].holder], mi, why, sizeof(why));
		if (got != cases[i].refused || (got && !strstr(why, cases[i].why)))
			fprintf(stderr, "    %s (mounting %d): %d '%s'\n", cases[i].path,
				cases[i].mounting, got, why);
		CHECK_EQ_INT(got, cases[i].refused);
		CHECK(!got || strstr(why, cases[i].why));
	}
	/* the holder not known: the path alone */
	char why[ST_ERR_MAX];
	CHECK_EQ_INT(st_mount_system_path("/proc", 0, NULL, NULL, why, sizeof(why)), 1);
	CHECK_EQ_INT(st_mount_system_path("/tmp/x", 1, NULL, NULL, why, sizeof(why)), 0);
	free(root);
	free(shm);
	free(proc);
}

/* The adapter resolves links and "..", and the mount driver's own entry
 * points refuse what it refuses, before anything is run. */
static void system_paths_resolved(void)
{
	char msg[ST_ERR_MAX], link[PATH_MAX + 8], dotdot[PATH_MAX + 32];
	const char *dir = unit_tmpdir();
	snprintf(link, sizeof(link), "%s/l", dir);
	snprintf(dotdot, sizeof(dotdot), "%s/../../proc/sys", dir);
	CHECK(symlink("/proc/sys", link) == 0);
	CHECK_EQ_INT(st_mount_refuse_system(link, 0, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "/proc/sys is under /proc, the system's own") != NULL);
	CHECK_EQ_INT(st_mount_refuse_system(dotdot, 1, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "stcluster mounts on none of the system's places") != NULL);
	CHECK_EQ_INT(st_mount_refuse_system(dir, 1, msg, sizeof(msg)), 0);
	CHECK_EQ_INT(st_mount_refuse_system("/no/such/dir", 1, msg, sizeof(msg)), 0);
	CHECK_EQ_INT(st_mount_check_target(link, 1, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "under /proc") != NULL);
	struct st_mount_state s = { .our_id = 0 };
	CHECK_EQ_INT(st_mount_take(&s, "stcluster-unit", "tmpfs", "size=1m", link, msg, sizeof(msg)),
		     -EINVAL);
	CHECK_EQ_INT(s.our_id, 0);
	CHECK_EQ_INT(st_mount_apply("stcluster-unit", "tmpfs", "size=1m", "/etc", 0, msg, sizeof(msg)),
		     -EINVAL);
	CHECK(strstr(msg, "/etc is the system's own") != NULL);
	CHECK(unlink(link) == 0);
	CHECK(rmdir(dir) == 0);
}

const struct unit_test unit_mount[] = {
	{ "mount: the system's own places, from the path and its mount (no root)", system_paths },
	{ "mount: system places resolved through links and '..', refused by every mount entry",
	  system_paths_resolved },
	{ "mount: options: NFS options in nfs(5) syntax, then mount-opts", options_nfs },
	{ "mount: options: unset options left out", options_unset },
	{ "mount: options: NFS options refused for tmpfs, repeats refused", options_refused },
	{ "mount: mountinfo: fixtures (nfs, \\040, stacked, empty source)", mountinfo_fixtures },
	{ "mount: mountstats: opts line per mount, last one wins", mountstats_fixtures },
	{ "mount: effective: NFS values from mountinfo and mountstats", effective_nfs },
	{ "mount: effective: other file systems, option union", effective_other },
	{ "mount: mount.nfs's messages to their errno", errno_of_messages },
	{ "mount: the kernel's overrides explained (noac, clamp, inherited nconnect)",
	  explain_overrides },
	{ "mount: cache drop: the choice from recorded mount tables (no root)", drop_choice },
	{ "mount: refuses /, relative targets, non-mount points; mount(8) errors", refusals },
	{ "mount: tmpfs: umount+mount, remount in place, effective, nothing left", tmpfs_cycle },
	{ "mount: ext4 on loop: remount and drop_caches empty the page cache", ext4_drop_caches },
	{ "mount: over a mount point: refused, mounted over, the one below back as it was",
	  mount_over_and_restore },
	{ NULL, NULL },
};
