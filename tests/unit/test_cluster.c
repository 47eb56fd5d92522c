/*
 * The cluster parts that need no MPI: roles from the target's server, the
 * route to the server, the /proc sampler, and the baselines' TCP streams
 * and disk file on this host.
 */
#include "../../common/net.h"
#include "../../common/options.h"
#include "../../common/util.h"
#include "../../coordinator/job/roles.h"
#include "../../coordinator/job/progress.h"
#include "../../worker/diskbench.h"
#include "../../worker/hostinfo.h"
#include "../../worker/lnfs_url.h"
#include "../../worker/sampler.h"
#include "unit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct st_host_info host(const char *name, const char *addrs, int local_rank)
{
	struct st_host_info h;
	memset(&h, 0, sizeof(h));
	st_copy(h.hostname, sizeof(h.hostname), name);
	st_copy(h.addresses, sizeof(h.addresses), addrs);
	h.local_rank = local_rank;
	return h;
}

static void target_server_names(void)
{
	struct st_config c;
	char err[ST_ERR_MAX], s[256];
	st_config_defaults(&c);
	st_config_set(&c, ST_OPT_TARGET, "nfs://10.77.5.9/export/dir?version=3", 1, NULL, err, sizeof(err));
	st_target_server(&c, s, sizeof(s));
	CHECK(strcmp(s, "10.77.5.9") == 0);
	/* a URL the engine refuses (a port in the server part) names no server */
	st_config_set(&c, ST_OPT_TARGET, "nfs://nfs1.example.org:2049/export", 1, NULL, err, sizeof(err));
	st_target_server(&c, s, sizeof(s));
	CHECK(strcmp(s, "") == 0);
	st_config_set(&c, ST_OPT_TARGET, "nfs://[fd00::5]/export", 1, NULL, err, sizeof(err));
	st_target_server(&c, s, sizeof(s));
	CHECK(strcmp(s, "fd00::5") == 0);
	st_config_set(&c, ST_OPT_TARGET, "/mnt/nfs", 1, NULL, err, sizeof(err));
	st_target_server(&c, s, sizeof(s));
	CHECK(strcmp(s, "") == 0);
	st_config_set(&c, ST_OPT_MOUNT, "filer2:/vol/bench", 1, NULL, err, sizeof(err));
	st_target_server(&c, s, sizeof(s));
	CHECK(strcmp(s, "filer2") == 0);
	st_config_set(&c, ST_OPT_MOUNT, "[fd00::1]:/export", 1, NULL, err, sizeof(err));
	st_target_server(&c, s, sizeof(s));
	CHECK(strcmp(s, "fd00::1") == 0);
}

/* The roles and the libnfs engine read a URL's server with one parser:
 * the host a rank is matched by is the host the engine connects to. (They
 * drifted once: roles took [fd00::5] as fd00::5, the engine as [fd00::5].) */
static void roles_and_engine_agree_on_the_server(void)
{
	static const char *const urls[] = {
		"nfs://10.77.5.9/export", "nfs://[fd00::5]/export", "nfs://fd00::5/export/dir",
		"nfs://nfs1.example.org/export?version=4", "nfs://[fd00::5]:2049/export",
		"nfs://h:2049/export", "nfs://[fd00::5/export", "nfs:///export",
	};
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		struct st_config c;
		struct st_nfs_url u;
		char err[ST_ERR_MAX], s[256], why[256];
		st_config_defaults(&c);
		st_config_set(&c, ST_OPT_TARGET, urls[i], 1, NULL, err, sizeof(err));
		st_target_server(&c, s, sizeof(s));
		const char *want = st_nfs_url_parse(urls[i], &u, why, sizeof(why)) == 0 ? u.host : "";
		if (strcmp(s, want))
			fprintf(stderr, "    %s: roles '%s', engine '%s'\n", urls[i], s, want);
		CHECK(strcmp(s, want) == 0);
		CHECK(!strpbrk(s, "[]"));
	}
}

static void roles_from_hosts(void)
{
	struct st_config c;
	char err[ST_ERR_MAX];
	st_config_defaults(&c);
	st_config_set(&c, ST_OPT_TARGET, "nfs://10.77.5.9/export", 1, NULL, err, sizeof(err));
	struct st_host_info h[5] = {
		host("lab-c1", "10.77.5.2", 0), host("lab-c2", "10.77.5.3", 0),
		host("lab-s1", "10.77.5.9,fd00::9", 1), host("lab-s1", "10.77.5.9,fd00::9", 0),
		host("lab-c1", "10.77.5.2", 1),
	};
	int roles[5];
	CHECK(st_assign_roles(&c, h, 5, roles) == 3);
	CHECK(roles[0] == ST_ROLE_CLIENT && roles[1] == ST_ROLE_CLIENT && roles[4] == ST_ROLE_CLIENT);
	CHECK(roles[3] == ST_ROLE_SERVER); /* the lowest local rank of the server host */
	CHECK(roles[2] == ST_ROLE_IDLE);
	/* --servers wins, by name or short name */
	st_config_set(&c, ST_OPT_SERVERS, "lab-c2", 1, NULL, err, sizeof(err));
	CHECK(st_assign_roles(&c, h, 5, roles) == 4);
	CHECK(roles[1] == ST_ROLE_SERVER && roles[2] == ST_ROLE_CLIENT);
	struct st_host_info fq = host("nfs1.example.org", "192.0.2.1", 0);
	CHECK(st_host_matches(&fq, "nfs1"));
	CHECK(st_host_matches(&fq, "192.0.2.1"));
	CHECK(!st_host_matches(&fq, "192.0.2.10"));
	CHECK(!st_host_matches(&fq, "nfs"));
	/* t_servers_by_host_name_use_the_reported_addresses: a name (that may
	 * not resolve on the clients) gives the addresses the rank reported;
	 * an address given comes first */
	char addr[64];
	st_server_address(&c, &h[1], addr, sizeof(addr));
	CHECK(strcmp(addr, "10.77.5.3") == 0);
	st_config_set(&c, ST_OPT_SERVERS, "lab-s1", 1, NULL, err, sizeof(err));
	st_server_address(&c, &h[3], addr, sizeof(addr));
	CHECK(strcmp(addr, "10.77.5.9,fd00::9") == 0);
	st_config_set(&c, ST_OPT_SERVERS, "fd00::9", 1, NULL, err, sizeof(err));
	st_server_address(&c, &h[3], addr, sizeof(addr));
	CHECK(strcmp(addr, "fd00::9,10.77.5.9") == 0);
}

static void route_to_server(void)
{
	/* /proc/net/route: little-endian hex; 10.77.5.0/24 on veth0, default via eth0 */
	const char *text =
		"Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
		"eth0\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
		"veth0\t00054D0A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
	char iface[32];
	struct in_addr a;
	inet_pton(AF_INET, "10.77.5.9", &a);
	CHECK(st_route_iface(text, a.s_addr, iface, sizeof(iface)) == 0 && strcmp(iface, "veth0") == 0);
	inet_pton(AF_INET, "192.0.2.1", &a);
	CHECK(st_route_iface(text, a.s_addr, iface, sizeof(iface)) == 0 && strcmp(iface, "eth0") == 0);
	CHECK(st_route_iface("Iface\tDestination\n", a.s_addr, iface, sizeof(iface)) == -1);
}

/* /proc/net/rpc/nfsd as Linux 6.1's knfsd writes it (a guest of the lab,
 * after 4 NFSv3 WRITEs and a COMMIT, 4 NFSv4.2 WRITEs and a COMMIT): the
 * counts land at the procedure and operation mountstats names the same */
static void nfsd_calls_parse(void)
{
	static const char text[] =
		"rc 0 0 0\nfh 0 0 0 0 0\nio 0 0\nth 8 0 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000 0.000\n"
		"net 0 0 0 0\nrpc 0 0 0 0 0\n"
		"proc3 22 2 2 0 1 1 0 0 4 1 0 0 0 1 0 0 0 0 0 0 2 1 1\n"
		"proc4 2 1 62\n"
		"proc4ops 76 0 0 0 3 1 1 0 0 0 53 4 0 0 0 0 2 0 0 1 0 0 0 54 0 2 0 0 0 1 0 0 0 0 0 0 0 0 0 "
		"4 0 0 0 2 1 1 0 0 0 0 0 0 0 1 57 0 0 0 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	struct st_nfsd_calls c;
	CHECK(st_nfsd_calls_parse(text, &c) == 0 && c.have3 && c.have4);
	int w3 = -1, c3 = -1, r3 = -1, w4 = -1, c4 = -1, s4 = -1;
	for (int i = 0; i < ST_NFSD_V3_OPS; i++) {
		const char *n = st_nfsd_call_name(3, i);
		w3 = n && !strcmp(n, "WRITE") ? i : w3;
		c3 = n && !strcmp(n, "COMMIT") ? i : c3;
		r3 = n && !strcmp(n, "READ") ? i : r3;
	}
	for (int i = 0; i < ST_NFSD_V4_OPS; i++) {
		const char *n = st_nfsd_call_name(4, i);
		w4 = n && !strcmp(n, "WRITE") ? i : w4;
		c4 = n && !strcmp(n, "COMMIT") ? i : c4;
		s4 = n && !strcmp(n, "SEQUENCE") ? i : s4;
	}
	/* RFC 1813: READ 6, WRITE 7, COMMIT 21; RFC 8881: COMMIT 5, WRITE 38, SEQUENCE 53 */
	CHECK(r3 == 6 && w3 == 7 && c3 == 21 && c4 == 5 && w4 == 38 && s4 == 53);
	CHECK(c.v3[w3] == 4 && c.v3[c3] == 1 && c.v3[r3] == 0);
	CHECK(c.v4[w4] == 4 && c.v4[c4] == 1 && c.v4[s4] == 57);
	CHECK(st_nfsd_call_name(4, 0) == NULL && st_nfsd_call_name(4, 76) == NULL && st_nfsd_call_name(5, 1) == NULL);
	CHECK(!strcmp(st_nfsd_call_name(4, 75), "REMOVEXATTR") && !strcmp(st_nfsd_call_name(3, 0), "NULL"));
	/* no server; a line shorter than it says, or longer than the table */
	CHECK(st_nfsd_calls_parse("rc 0 0 0\n", &c) == -1);
	CHECK(st_nfsd_calls_parse("proc3 22 1 2 3\n", &c) == -1 && !c.have3);
	CHECK(st_nfsd_calls_parse("proc3 23 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", &c) == -1);
	CHECK(st_nfsd_calls_parse("proc4ops 6 0 0 0 0 0 9\nproc3 2 0 1", &c) == 0 && c.have3 && c.have4 &&
	      c.v4[5] == 9 && c.v3[1] == 1);
}

/* pool_stats as Linux 6.1 writes it, two pools summed; the header skipped */
static void nfsd_pool_parse(void)
{
	uint64_t v[4];
	CHECK(st_nfsd_pool_parse("# pool packets-arrived sockets-enqueued threads-woken threads-timedout\n"
				 "0 1200 1200 700 0\n1 30 30 30 2\n",
				 v) == 2);
	CHECK(v[0] == 1230 && v[1] == 1230 && v[2] == 730 && v[3] == 2);
	CHECK(st_nfsd_pool_parse("# pool packets-arrived sockets-enqueued threads-woken threads-timedout\n", v) == 0);
	CHECK(st_nfsd_pool_parse("", v) == 0 && v[0] == 0);
}

/* The export's disk: the root file system's is a whole disk of /sys/block,
 * and its intervals carry an "export_disk" point beside its busy share
 * (0-100) and queue; a tmpfs path has none */
static void sampler_export_disk(void)
{
	struct st_sampler *s = st_sampler_new(4000);
	CHECK(st_sampler_export(s, "/dev/shm") == -1);
	if (st_sampler_export(s, "/") != 0) {
		printf("# / is on no block device here: the export disk's points not checked\n");
		st_sampler_free(s);
		return;
	}
	st_sampler_tick(s, 0);
	char path[] = "/tmp/st-sampler-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, path, sizeof(path)) == (ssize_t)sizeof(path) && fsync(fd) == 0);
	close(fd);
	unlink(path);
	usleep(20000);
	st_sampler_tick(s, 0);
	size_t n;
	const struct st_sample *p = st_sampler_points(s, &n);
	const char *disk = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].metric, "export_disk"))
			disk = p[i].device;
	CHECK(disk != NULL);
	int busy = 0, queue = 0;
	for (size_t i = 0; disk && i < n; i++) {
		busy += !strcmp(p[i].metric, "disk_busy_pct") && !strcmp(p[i].device, disk) &&
			p[i].value >= 0 && p[i].value <= 100;
		queue += !strcmp(p[i].metric, "disk_queue") && !strcmp(p[i].device, disk) && p[i].value >= 0;
	}
	char sys[64];
	snprintf(sys, sizeof(sys), "/sys/block/%s", disk ? disk : "?");
	CHECK(busy == 1 && queue == 1 && access(sys, F_OK) == 0);
	st_sampler_free(s);
}

static void sampler_rates(void)
{
	struct st_sampler *s = st_sampler_new(1000);
	size_t n;
	st_sampler_tick(s, 0);
	st_sampler_points(s, &n);
	CHECK(n == 0); /* the first tick only primes */
	volatile double x = 0;
	for (int i = 0; i < 20000000; i++) /* some CPU to see */
		x += i;
	(void)x; /* clang: set but not used */
	usleep(20000);
	st_sampler_tick(s, 0);
	const struct st_sample *p = st_sampler_points(s, &n);
	int cpu = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(p[i].metric, "cpu_user_pct") == 0) {
			cpu = 1;
			CHECK(p[i].value >= 0 && p[i].value <= 100.0001);
		}
		CHECK(p[i].value >= 0);
	}
	CHECK(cpu);
	st_sampler_reset(s);
	st_sampler_points(s, &n);
	CHECK(n == 0);
	st_sampler_free(s);
	/* a full sampler drops and counts */
	s = st_sampler_new(2);
	st_sampler_tick(s, 0);
	usleep(10000);
	st_sampler_tick(s, 0);
	st_sampler_points(s, &n);
	CHECK(n == 2 && st_sampler_dropped(s) > 0);
	st_sampler_free(s);
}

struct sender {
	int port;
	int rc;
	struct st_net_result r;
};

static void *send_for_a_while(void *arg)
{
	struct sender *sd = arg;
	int fd;
	sd->rc = st_net_connect("127.0.0.1", sd->port, st_now_ns() + 5000000000LL, &fd);
	if (!sd->rc)
		sd->rc = st_net_stream(&fd, 1, 1, 200000000, st_now_ns() + 5000000000LL, &sd->r);
	return NULL;
}

static void tcp_stream_counts_bytes(void)
{
	int lfd, port, fd;
	CHECK(st_net_listen(&lfd, &port) == 0 && port > 0);
	struct sender sd = { .port = port };
	pthread_t t;
	pthread_create(&t, NULL, send_for_a_while, &sd);
	CHECK(st_net_accept(lfd, 1, &fd, st_now_ns() + 5000000000LL) == 0);
	struct st_net_result got;
	CHECK(st_net_stream(&fd, 1, 0, 0, st_now_ns() + 5000000000LL, &got) == 0);
	pthread_join(t, NULL);
	CHECK(sd.rc == 0);
	/* every byte sent was received, over about the 0.2 s the sender sent */
	CHECK(got.bytes > 0 && got.bytes == sd.r.bytes);
	double secs = (double)(got.last_ns - got.first_ns) / 1e9;
	CHECK(secs > 0.1 && secs < 1.5);
	close(lfd);
	/* nobody listening: refused, quickly */
	int64_t t0 = st_now_ns();
	CHECK(st_net_connect("127.0.0.1", port, st_now_ns() + 2000000000LL, &fd) < 0);
	CHECK(st_now_ns() - t0 < 1000000000LL);
}

static void disk_file(void)
{
	const char *dir = unit_tmpdir();
	struct st_diskbench_result r;
	char msg[200] = "";
	CHECK(st_diskbench_run(dir, "base", 4 << 20, 1 << 20, &r, msg, sizeof(msg)) == 0);
	CHECK(r.write_mbps > 0 && r.read_mbps > 0);
	DIR *d = opendir(dir);
	int left = 0;
	for (struct dirent *e; d && (e = readdir(d));)
		left += e->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK(left == 0); /* its file is gone */
	CHECK(st_diskbench_run("/nonexistent-dir", "base", 1 << 20, 1 << 20, &r, msg, sizeof(msg)) < 0);
	CHECK(strstr(msg, "/nonexistent-dir") != NULL);
	rmdir(dir);
}

/* t_disk_baseline_leaves_a_file_it_did_not_create: a file of the
 * baseline's name already there (another run's, the user's) is neither
 * written nor removed */
static void disk_file_not_ours(void)
{
	const char *dir = unit_tmpdir();
	char path[600], msg[200] = "", back[32] = "";
	snprintf(path, sizeof(path), "%s/stcluster-baseline-x", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("not yours", f);
	fclose(f);
	struct st_diskbench_result r;
	CHECK(st_diskbench_run(dir, "stcluster-baseline-x", 1 << 20, 1 << 20, &r, msg, sizeof(msg)) ==
	      -EEXIST);
	CHECK(strstr(msg, "left as it is") != NULL);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(back, sizeof(back), f) != NULL);
		fclose(f);
	}
	CHECK(strcmp(back, "not yours") == 0);
	unlink(path);
	rmdir(dir);
}

/* t_eta_counts_the_running_combination_once: 4 combinations of 10 s each;
 * the ETA is what is left, and falls as the running one goes on (it was
 * the time so far per finished combination times what is left, the running
 * one included, and grew within a combination: 2-5x too high) */
static void eta_falls_within_a_combination(void)
{
	const int64_t s = 1000000000LL;
	CHECK(st_progress_eta(0, 4, 0, 5 * s) < 0); /* nothing finished: unknown */
	CHECK(fabs(st_progress_eta(1, 4, 10 * s, 10 * s) - 30) < 1e-9);
	CHECK(fabs(st_progress_eta(1, 4, 10 * s, 15 * s) - 25) < 1e-9);
	CHECK(fabs(st_progress_eta(1, 4, 10 * s, 19 * s) - 21) < 1e-9);
	CHECK(fabs(st_progress_eta(3, 4, 30 * s, 35 * s) - 5) < 1e-9);
	CHECK(st_progress_eta(3, 4, 30 * s, 45 * s) == 0); /* late: not negative */
	/* a resumed run: 2 of 10 stored, 8 to run here; after 2 of them (20 s) */
	CHECK(fabs(st_progress_eta(2, 8, 20 * s, 20 * s) - 60) < 1e-9);
}

const struct unit_test unit_cluster[] = {
	{ "cluster: t_eta_counts_the_running_combination_once", eta_falls_within_a_combination },
	{ "cluster: the target's server from URL and --mount", target_server_names },
	{ "cluster: roles and the libnfs engine read one server from a URL", roles_and_engine_agree_on_the_server },
	{ "cluster: roles: servers, idle ranks on a server host, --servers; "
	  "t_servers_by_host_name_use_the_reported_addresses", roles_from_hosts },
	{ "cluster: the interface of the route to the server", route_to_server },
	{ "cluster: sampler: priming, CPU percentages, reset, bounded", sampler_rates },
	{ "cluster: sampler: knfsd's calls per operation from /proc/net/rpc/nfsd", nfsd_calls_parse },
	{ "cluster: sampler: knfsd's thread pools from /proc/fs/nfsd/pool_stats", nfsd_pool_parse },
	{ "cluster: sampler: the export's whole disk, its busy share and queue", sampler_export_disk },
	{ "cluster: TCP stream: every byte counted, refused fast", tcp_stream_counts_bytes },
	{ "cluster: disk baseline writes, reads and removes its file", disk_file },
	{ "cluster: t_disk_baseline_leaves_a_file_it_did_not_create", disk_file_not_ours },
	{ NULL, NULL },
};
