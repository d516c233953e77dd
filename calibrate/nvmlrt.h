/*
 * nvmlrt.h - NVML, the NVIDIA Management Library, loaded at run time
 * (dlopen of libnvidia-ml.so.1, the driver's copy): podplan-calibrate
 * builds and starts without it, and every NVML figure it reports is
 * "unknown" where the library or an entry point is missing. The
 * prototypes, types and constants below follow nvml.h (the _v2 names are
 * the stable ABI); NVML's API reference:
 * https://docs.nvidia.com/deploy/nvml-api/
 *
 * Used for the link matrix (topo.c) and for the clocks, power, temperature
 * and clocks-event (throttle) reasons read during sustained GEMMs (gpu.c).
 */
#ifndef PP_CAL_NVMLRT_H
#define PP_CAL_NVMLRT_H

#include <stdbool.h>
#include <stdint.h>

typedef int pp_nvml_ret;                   /* nvmlReturn_t; 0 = NVML_SUCCESS */
typedef struct pp_nvml_dev_st *pp_nvml_dev;  /* nvmlDevice_t */
typedef struct pp_nvml_pci {               /* nvmlPciInfo_t */
	char bus_id_legacy[16];
	unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
} pp_nvml_pci;

#define PP_NVML_MAX_LINKS 18                /* NVML_NVLINK_MAX_LINKS */
#define PP_NVML_DEVTYPE_GPU 0               /* NVML_NVLINK_DEVICE_TYPE_GPU */
#define PP_NVML_DEVTYPE_SWITCH 2            /* NVML_NVLINK_DEVICE_TYPE_SWITCH */
#define PP_NVML_CLOCK_SM 1                  /* nvmlClockType_t NVML_CLOCK_SM */
#define PP_NVML_CLOCK_MEM 2                 /* NVML_CLOCK_MEM */
#define PP_NVML_TEMPERATURE_GPU 0           /* nvmlTemperatureSensors_t */

typedef struct pp_nvml {
	void *lib;
	pp_nvml_ret (*init)(void);
	pp_nvml_ret (*shutdown)(void);
	pp_nvml_ret (*by_pci)(const char *, pp_nvml_dev *);
	pp_nvml_ret (*driver)(char *, unsigned);
	/* links */
	pp_nvml_ret (*link_state)(pp_nvml_dev, unsigned, int *);
	pp_nvml_ret (*remote_pci)(pp_nvml_dev, unsigned, pp_nvml_pci *);
	pp_nvml_ret (*remote_type)(pp_nvml_dev, unsigned, int *);
	/* monitoring (each may be NULL) */
	pp_nvml_ret (*clock)(pp_nvml_dev, int, unsigned *);      /* nvmlDeviceGetClockInfo, MHz */
	pp_nvml_ret (*max_clock)(pp_nvml_dev, int, unsigned *);  /* nvmlDeviceGetMaxClockInfo */
	pp_nvml_ret (*power)(pp_nvml_dev, unsigned *);           /* nvmlDeviceGetPowerUsage, mW */
	pp_nvml_ret (*power_limit)(pp_nvml_dev, unsigned *);     /* ...GetEnforcedPowerLimit, mW */
	pp_nvml_ret (*temperature)(pp_nvml_dev, int, unsigned *); /* nvmlDeviceGetTemperature, C */
	/* nvmlDeviceGetCurrentClocksEventReasons, or its older name
	 * nvmlDeviceGetCurrentClocksThrottleReasons */
	pp_nvml_ret (*reasons)(pp_nvml_dev, unsigned long long *);
} pp_nvml;

/* Load and initialise NVML; false (n cleared) when it cannot be had. */
bool pp_nvml_open(pp_nvml *n);
void pp_nvml_close(pp_nvml *n);

/* What NVML says of one GPU now; NAN (reasons -1) for what it cannot. */
typedef struct pp_nvml_reading {
	double sm_clock_mhz, mem_clock_mhz, power_w, temp_c;
	int64_t reasons;
} pp_nvml_reading;

void pp_nvml_read(const pp_nvml *n, pp_nvml_dev h, pp_nvml_reading *out);

#endif
