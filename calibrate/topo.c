/* topo.c - see topo.h. */
#include "topo.h"
#include "nvmlrt.h"
#include "cudacheck.h"
#include "core/jsonout.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool parse_pci(const char *s, unsigned *dom, unsigned *bus, unsigned *dev)
{
	return sscanf(s, "%x:%x:%x", dom, bus, dev) == 3;
}

int pp_cal_gpu_describe(int dev, int rank, pp_cal_gpu_desc *d, pp_err *err)
{
	int rc = 0;
	struct cudaDeviceProp p;
	memset(d, 0, sizeof(*d));
	d->rank = rank;
	d->device = dev;
	d->nvlinks = -1;
	if (gethostname(d->host, sizeof(d->host) - 1))
		snprintf(d->host, sizeof(d->host), "?");
	CUDA_TRY(cudaGetDeviceProperties(&p, dev));
	snprintf(d->name, sizeof(d->name), "%s", p.name);
	d->mem_bytes = (int64_t)p.totalGlobalMem;
	d->sm_count = p.multiProcessorCount;
	d->cc_major = p.major;
	d->cc_minor = p.minor;
	CUDA_TRY(cudaDeviceGetAttribute(&d->clock_khz, cudaDevAttrClockRate, dev));
	CUDA_TRY(cudaDeviceGetAttribute(&d->mem_clock_khz, cudaDevAttrMemoryClockRate, dev));
	CUDA_TRY(cudaDeviceGetPCIBusId(d->pci, sizeof(d->pci), dev));
	pp_nvml n;
	if (pp_nvml_open(&n)) {
		pp_nvml_dev h;
		if (n.link_state && n.by_pci(d->pci, &h) == 0) {
			d->nvlinks = 0;
			for (unsigned l = 0; l < PP_NVML_MAX_LINKS; l++) {
				int on = 0;
				if (n.link_state(h, l, &on) == 0 && on)
					d->nvlinks++;
			}
		}
		pp_nvml_close(&n);
	}
out:
	return rc;
}

/* `nvidia-smi topo -m` parsed: the GPU x GPU block of the matrix. */
static int smi_topo(char *raw, size_t rawn, char cells[][PP_CAL_MAX_GPUS][16], int *ncols)
{
	FILE *p = popen("nvidia-smi topo -m 2>/dev/null", "r");
	size_t len = 0;
	*ncols = 0;
	raw[0] = '\0';
	if (!p)
		return -1;
	len = fread(raw, 1, rawn - 1, p);
	raw[len] = '\0';
	if (pclose(p) != 0 || !len)
		return -1;
	/* drop terminal escapes (underlined header on some versions) */
	char *w = raw;
	for (char *r = raw; *r; r++) {
		if (*r == '\033') {
			while (*r && !isalpha((unsigned char)*r))
				r++;
			if (!*r)
				break;
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
	char *copy = pp_xstrdup(raw), *save = NULL;
	int rows = 0;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[PP_CAL_MAX_GPUS + 8];
		int nf = 0;
		char *s2 = NULL;
		for (char *t = strtok_r(line, "\t", &s2); t && nf < (int)PP_ARRAY_LEN(f);
		     t = strtok_r(NULL, "\t", &s2)) {
			while (*t == ' ')
				t++;
			size_t l = strlen(t);
			while (l && t[l - 1] == ' ')
				t[--l] = '\0';
			f[nf++] = t;
		}
		if (!*ncols) {
			for (int i = 0; i < nf; i++)
				if (!strncmp(f[i], "GPU", 3) && isdigit((unsigned char)f[i][3]))
					(*ncols)++;
			continue;
		}
		if (nf > *ncols && !strncmp(f[0], "GPU", 3) && rows < PP_CAL_MAX_GPUS) {
			for (int c = 0; c < *ncols && c < PP_CAL_MAX_GPUS; c++)
				snprintf(cells[rows][c], 16, "%s", f[c + 1]);
			rows++;
		}
	}
	free(copy);
	return rows == *ncols && rows > 0 ? 0 : -1;
}

static void add_nics(cJSON *topo)
{
	DIR *d;
	struct dirent *e;
	char path[512], buf[128];
	cJSON *nics = pp_json_arr(topo, "nics");
	if ((d = opendir("/sys/class/infiniband"))) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/rate", e->d_name);
			FILE *f = fopen(path, "r");
			buf[0] = '\0';
			if (f) {
				if (!fgets(buf, sizeof(buf), f))
					buf[0] = '\0';
				fclose(f);
			}
			buf[strcspn(buf, "\n")] = '\0';
			cJSON *nic = pp_json_obj(nics, NULL);
			pp_json_str(nic, "name", e->d_name);
			pp_json_str(nic, "kind", "rdma");
			pp_json_str(nic, "rate", buf);
		}
		closedir(d);
	}
	if ((d = opendir("/sys/class/net"))) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' || !strcmp(e->d_name, "lo"))
				continue;
			snprintf(path, sizeof(path), "/sys/class/net/%s/speed", e->d_name);
			FILE *f = fopen(path, "r");
			long mbps = -1;
			if (f) {
				if (fscanf(f, "%ld", &mbps) != 1)
					mbps = -1;
				fclose(f);
			}
			if (mbps > 0)
				snprintf(buf, sizeof(buf), "%ld Mb/s", mbps);
			else
				snprintf(buf, sizeof(buf), "unknown speed");
			cJSON *nic = pp_json_obj(nics, NULL);
			pp_json_str(nic, "name", e->d_name);
			pp_json_str(nic, "kind", "socket");
			pp_json_str(nic, "rate", buf);
		}
		closedir(d);
	}
}

/* NVLink matrix from NVML for the GPUs on this host (loc[] indexes gpus). */
static bool nvml_links(const pp_cal_gpu_desc *gpus, const int *loc, int nl,
		       char cells[][PP_CAL_MAX_GPUS][16])
{
	pp_nvml n;
	int direct[PP_CAL_MAX_GPUS][PP_CAL_MAX_GPUS] = {{0}}, sw[PP_CAL_MAX_GPUS] = {0};
	int unknown_gpu[PP_CAL_MAX_GPUS] = {0};
	if (!pp_nvml_open(&n))
		return false;
	if (!n.link_state) {
		pp_nvml_close(&n);
		return false;
	}
	for (int a = 0; a < nl; a++) {
		pp_nvml_dev h;
		if (n.by_pci(gpus[loc[a]].pci, &h) != 0)
			continue;
		for (unsigned l = 0; l < PP_NVML_MAX_LINKS; l++) {
			int on = 0, type = -1;
			pp_nvml_pci rp;
			if (n.link_state(h, l, &on) != 0 || !on)
				continue;
			if (n.remote_type && n.remote_type(h, l, &type) == 0 && type == PP_NVML_DEVTYPE_SWITCH) {
				sw[a]++;
				continue;
			}
			int match = -1;
			if (n.remote_pci && n.remote_pci(h, l, &rp) == 0) {
				for (int b = 0; b < nl; b++) {
					unsigned dom, bus, dev;
					if (b != a && parse_pci(gpus[loc[b]].pci, &dom, &bus, &dev) &&
					    dom == rp.domain && bus == rp.bus && dev == rp.device)
						match = b;
				}
			}
			if (match >= 0)
				direct[a][match]++;
			else if (type == PP_NVML_DEVTYPE_GPU)
				unknown_gpu[a]++;
			else
				sw[a]++;
		}
	}
	pp_nvml_close(&n);
	for (int a = 0; a < nl; a++)
		for (int b = 0; b < nl; b++) {
			int c = direct[a][b];
			/* a VM may show host-side PCI addresses at the far end: with two
			 * GPUs, a GPU link that matches nothing can only reach the other */
			if (!c && nl == 2 && a != b)
				c = unknown_gpu[a];
			if (!c && sw[a] && sw[b])
				c = sw[a] < sw[b] ? sw[a] : sw[b];
			if (a == b)
				snprintf(cells[a][b], 16, "X");
			else if (c)
				snprintf(cells[a][b], 16, "NV%d", c);
			else
				cells[a][b][0] = '\0';
		}
	return true;
}

static void version_str(int v, char *buf, size_t n, int div)
{
	/* CUDA: 13000 -> 13.0; NCCL: 22803 -> 2.28.3 */
	if (div == 1000)
		snprintf(buf, n, "%d.%d", v / 1000, v % 1000 / 10);
	else
		snprintf(buf, n, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

int pp_cal_topology(const pp_cal_gpu_desc *gpus, int n, pp_cal_host *h, pp_err *err)
{
	int rc = 0, v = 0;
	cJSON *j = NULL;
	char raw[16384];
	static char cells[PP_CAL_MAX_GPUS][PP_CAL_MAX_GPUS][16];
	int loc[PP_CAL_MAX_GPUS], nl = 0, smi_cols = 0;
	const char *from = "CUDA peer access";
	if (n > PP_CAL_MAX_GPUS)
		return pp_errf(err, PP_EINPUT, "%d GPUs; podplan-calibrate handles at most %d", n,
			       PP_CAL_MAX_GPUS);
	memset(h, 0, sizeof(*h));
	if (gethostname(h->host, sizeof(h->host) - 1))
		snprintf(h->host, sizeof(h->host), "?");
	h->ngpus = n;
	h->cpu_cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	h->mem_bytes = (int64_t)sysconf(_SC_PHYS_PAGES) * (int64_t)sysconf(_SC_PAGESIZE);
	snprintf(h->gpu_name, sizeof(h->gpu_name), "%s", n ? gpus[0].name : "?");
	for (int i = 1; i < n; i++)
		if (strcmp(gpus[i].name, gpus[0].name))
			snprintf(h->gpu_name, sizeof(h->gpu_name), "mixed: %s, %s", gpus[0].name,
				 gpus[i].name);
	h->nhosts = 0;
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen |= !strcmp(gpus[k].host, gpus[i].host);
		h->nhosts += !seen;
		if (!strcmp(gpus[i].host, gpus[0].host))
			loc[nl++] = i;
		h->nvlinks_active[i] = gpus[i].nvlinks;
	}
	CUDA_TRY(cudaRuntimeGetVersion(&v));
	version_str(v, h->cuda, sizeof(h->cuda), 1000);
	NCCL_TRY(ncclGetVersion(&v));
	version_str(v, h->nccl, sizeof(h->nccl), 10000);
	pp_nvml nv;
	if (pp_nvml_open(&nv)) {
		if (!nv.driver || nv.driver(h->driver, sizeof(h->driver)) != 0)
			h->driver[0] = '\0';
		pp_nvml_close(&nv);
	}
	if (!h->driver[0]) {
		CUDA_TRY(cudaDriverGetVersion(&v));
		char d[32];
		version_str(v, d, sizeof(d), 1000);
		snprintf(h->driver, sizeof(h->driver), "CUDA driver API %s", d);
	}
	/* links among this host's GPUs: nvidia-smi's own matrix when its GPU
	 * count matches (same order: both enumerate by PCI bus), else NVML,
	 * else CUDA's peer access */
	memset(cells, 0, sizeof(cells));
	if (smi_topo(raw, sizeof(raw), cells, &smi_cols) == 0 && smi_cols == nl &&
	    !getenv("CUDA_VISIBLE_DEVICES")) {
		from = "nvidia-smi topo -m";
	} else {
		memset(cells, 0, sizeof(cells));
		if (nvml_links(gpus, loc, nl, cells))
			from = "NVML";
		for (int a = 0; a < nl; a++)
			for (int b = 0; b < nl; b++) {
				if (cells[a][b][0])
					continue;
				int can = 0, ndev = 0;
				cudaGetDeviceCount(&ndev);
				if (a != b && gpus[loc[a]].device < ndev && gpus[loc[b]].device < ndev &&
				    cudaDeviceCanAccessPeer(&can, gpus[loc[a]].device, gpus[loc[b]].device) !=
					    cudaSuccess)
					can = 0;
				snprintf(cells[a][b], 16, "%s", a == b ? "X" : can ? "P2P" : "SYS");
			}
	}
	h->nvlink_all_pairs = n > 1;
	j = pp_json_obj(NULL, NULL);
	cJSON *ga = pp_json_arr(j, "gpus");
	for (int i = 0; i < n; i++) {
		const pp_cal_gpu_desc *g = &gpus[i];
		char cc[16];
		snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
		cJSON *o = pp_json_obj(ga, NULL);
		pp_json_int(o, "rank", g->rank);
		pp_json_str(o, "host", g->host);
		pp_json_int(o, "device", g->device);
		pp_json_str(o, "pci", g->pci);
		pp_json_str(o, "name", g->name);
		pp_json_int(o, "mem_bytes", g->mem_bytes);
		pp_json_int(o, "sm_count", g->sm_count);
		pp_json_str(o, "cc", cc);
		pp_json_int(o, "clock_mhz", g->clock_khz / 1000);
		pp_json_int(o, "mem_clock_mhz", g->mem_clock_khz / 1000);
		pp_json_int(o, "nvlinks", g->nvlinks);
	}
	cJSON *links = pp_json_arr(j, "links");
	for (int a = 0; a < n; a++) {
		cJSON *row = pp_json_arr(links, NULL);
		for (int b = 0; b < n; b++) {
			int la = -1, lb = -1;
			for (int k = 0; k < nl; k++) {
				if (loc[k] == a)
					la = k;
				if (loc[k] == b)
					lb = k;
			}
			const char *c = a == b ? "X" : la >= 0 && lb >= 0 ? cells[la][lb] :
				strcmp(gpus[a].host, gpus[b].host) ? "NET" : "?";
			if (a != b && strncmp(c, "NV", 2))
				h->nvlink_all_pairs = false;
			pp_json_str(row, NULL, c);
		}
	}
	pp_json_str(j, "links_from", from);
	add_nics(j);
	if (raw[0])
		pp_json_str(j, "nvidia_smi_topo", raw);
	h->topology_json = pp_json_finish(j, false);
	j = NULL;
out:
	cJSON_Delete(j);
	return rc;
}
