/*
 * hostinfo.c - hostname, addresses, cores, NUMA, kernel and CPU model.
 */
#include "hostinfo.h"

#include "../common/util.h"

#include <arpa/inet.h>
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

void st_hostinfo_collect(hwloc_topology_t topo, struct st_host_info *h)
{
	h->version = ST_WIRE_VERSION;
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	collect_addresses(h->addresses, sizeof(h->addresses));
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.release, u.version);
	collect_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	h->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	h->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	h->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	h->mem_bytes = (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	h->pid = (int32_t)getpid();
}
