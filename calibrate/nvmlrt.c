/* nvmlrt.c - see nvmlrt.h. */
#include "nvmlrt.h"

#include <dlfcn.h>
#include <math.h>
#include <string.h>

bool pp_nvml_open(pp_nvml *n)
{
	memset(n, 0, sizeof(*n));
	n->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->lib)
		return false;
	*(void **)&n->init = dlsym(n->lib, "nvmlInit_v2");
	*(void **)&n->shutdown = dlsym(n->lib, "nvmlShutdown");
	*(void **)&n->by_pci = dlsym(n->lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&n->driver = dlsym(n->lib, "nvmlSystemGetDriverVersion");
	*(void **)&n->link_state = dlsym(n->lib, "nvmlDeviceGetNvLinkState");
	*(void **)&n->remote_pci = dlsym(n->lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	*(void **)&n->remote_type = dlsym(n->lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
	*(void **)&n->clock = dlsym(n->lib, "nvmlDeviceGetClockInfo");
	*(void **)&n->max_clock = dlsym(n->lib, "nvmlDeviceGetMaxClockInfo");
	*(void **)&n->power = dlsym(n->lib, "nvmlDeviceGetPowerUsage");
	*(void **)&n->power_limit = dlsym(n->lib, "nvmlDeviceGetEnforcedPowerLimit");
	*(void **)&n->temperature = dlsym(n->lib, "nvmlDeviceGetTemperature");
	*(void **)&n->reasons = dlsym(n->lib, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!n->reasons)
		*(void **)&n->reasons = dlsym(n->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	if (!n->init || !n->shutdown || !n->by_pci || n->init() != 0) {
		dlclose(n->lib);
		memset(n, 0, sizeof(*n));
		return false;
	}
	return true;
}

void pp_nvml_close(pp_nvml *n)
{
	if (n->lib) {
		n->shutdown();
		dlclose(n->lib);
	}
	memset(n, 0, sizeof(*n));
}

void pp_nvml_read(const pp_nvml *n, pp_nvml_dev h, pp_nvml_reading *out)
{
	unsigned v = 0;
	unsigned long long r = 0;
	out->sm_clock_mhz = out->mem_clock_mhz = out->power_w = out->temp_c = NAN;
	out->reasons = -1;
	if (!n->lib || !h)
		return;
	if (n->clock && n->clock(h, PP_NVML_CLOCK_SM, &v) == 0)
		out->sm_clock_mhz = v;
	if (n->clock && n->clock(h, PP_NVML_CLOCK_MEM, &v) == 0)
		out->mem_clock_mhz = v;
	if (n->power && n->power(h, &v) == 0)
		out->power_w = v * 1e-3;
	if (n->temperature && n->temperature(h, PP_NVML_TEMPERATURE_GPU, &v) == 0)
		out->temp_c = v;
	if (n->reasons && n->reasons(h, &r) == 0)
		out->reasons = (int64_t)r;
}
