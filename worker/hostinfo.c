/*
 * hostinfo.c - hostname, addresses, cores, NUMA, kernel and CPU model.
 */
#include "hostinfo.h"

#include "../common/util.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void collect_addresses(char *out, size_t n)
{
	struct ifaddrs *ifa = NULL;
	out[0] = '\0';
	if (getifaddrs(&ifa))
		return;
	size_t off = 0;
	for (struct ifaddrs *p = ifa; p; p = p->ifa_next) {
		if (!p->ifa_addr || (p->ifa_flags & IFF_LOOPBACK))
			continue;
		char a[INET6_ADDRSTRLEN] = "";
		if (p->ifa_addr->sa_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)p->ifa_addr)->sin_addr, a,
				  sizeof(a));
		else if (p->ifa_addr->sa_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)(void *)p->ifa_addr)->sin6_addr,
				  a, sizeof(a));
		else
			continue;
		int w = snprintf(out + off, n - off, "%s%s", off ? "," : "", a);
		if (w < 0 || (size_t)w >= n - off) {
			out[off] = '\0';
			break;
		}
		off += (size_t)w;
	}
	freeifaddrs(ifa);
}

static void collect_cpu_model(char *out, size_t n)
{
	out[0] = '\0';
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0) {
			char *c = strchr(line, ':');
			if (c) {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				c[strcspn(c, "\n")] = '\0';
				st_copy(out, n, c);
			}
			break;
		}
	}
	fclose(f);
}

static int64_t read_num(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v = -1;
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void read_line(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "r");
	out[0] = '\0';
	if (!f)
		return;
	if (fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = '\0';
	for (char *p = out; *p; p++)
		if (*p == '\t')
			*p = ' ';
	fclose(f);
}

int st_route_iface(const char *text, uint32_t addr_be, char *iface, size_t n)
{
	int best = -1;
	const char *p = text;
	while (p && *p) {
		char name[32];
		unsigned int dest, gw, flags, refcnt, use, metric, mask;
		if (sscanf(p, "%31s %x %x %x %u %u %u %x", name, &dest, &gw, &flags, &refcnt, &use,
			   &metric, &mask) == 8 &&
		    (flags & 1) && (addr_be & mask) == dest) {
			int bits = __builtin_popcount(mask);
			if (bits > best) {
				best = bits;
				st_copy(iface, n, name);
			}
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return best >= 0 ? 0 : -1;
}

static void collect_iface(const char *server, struct st_host_info *h)
{
	struct in_addr a = { 0 };
	struct addrinfo hints = { .ai_family = AF_INET }, *res = NULL;
	h->mtu = -1;
	h->speed_mbps = -1;
	if (server && *server && getaddrinfo(server, NULL, &hints, &res) == 0 && res) {
		a = ((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr;
		freeaddrinfo(res);
	}
	char text[8192];
	FILE *f = fopen("/proc/net/route", "r");
	if (!f)
		return;
	size_t got = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[got] = '\0';
	if (st_route_iface(text, a.s_addr, h->iface, sizeof(h->iface)))
		return;
	char path[96];
	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", h->iface);
	h->mtu = (int32_t)read_num(path);
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", h->iface);
	h->speed_mbps = (int32_t)read_num(path);
}

void st_hostinfo_names(struct st_host_info *h)
{
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	collect_addresses(h->addresses, sizeof(h->addresses));
}

void st_hostinfo_collect(hwloc_topology_t topo, const char *server, struct st_host_info *h)
{
	h->version = ST_WIRE_VERSION;
	st_hostinfo_names(h);
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.release, u.version);
	collect_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	h->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	h->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	h->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	h->mem_bytes = (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	h->pid = (int32_t)getpid();
	h->rmem_max = read_num("/proc/sys/net/core/rmem_max");
	h->wmem_max = read_num("/proc/sys/net/core/wmem_max");
	read_line("/proc/sys/net/ipv4/tcp_rmem", h->tcp_rmem, sizeof(h->tcp_rmem));
	read_line("/proc/sys/net/ipv4/tcp_wmem", h->tcp_wmem, sizeof(h->tcp_wmem));
	h->sunrpc_slots = (int32_t)read_num("/proc/sys/sunrpc/tcp_slot_table_entries");
	collect_iface(server, h);
}
