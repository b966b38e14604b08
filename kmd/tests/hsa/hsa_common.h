/* What the HSA test clients share: the includes, STEP (prints "step NAME ok", or
 * "step NAME FAILED <status> <text>" and returns 1 from main), and the agent and kernarg
 * region finders for hsa_iterate_agents / hsa_agent_iterate_regions. */
#ifndef GFXSIM_HSA_COMMON_H
#define GFXSIM_HSA_COMMON_H
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEP(name, expr)                                                        \
    do {                                                                        \
        hsa_status_t s_ = (expr);                                               \
        if (s_ != HSA_STATUS_SUCCESS) {                                         \
            const char *m_ = "";                                                \
            hsa_status_string(s_, &m_);                                         \
            printf("step %s FAILED 0x%x %s\n", name, (unsigned)s_, m_);         \
            return 1;                                                           \
        }                                                                       \
        printf("step %s ok\n", name);                                           \
        fflush(stdout);                                                         \
    } while (0)

static inline hsa_status_t find_gpu(hsa_agent_t agent, void *data) {
    hsa_device_type_t type;
    if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS)
        return HSA_STATUS_ERROR;
    if (type == HSA_DEVICE_TYPE_GPU) {
        *(hsa_agent_t *)data = agent;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}

static inline hsa_status_t find_kernarg(hsa_region_t region, void *data) {
    hsa_region_segment_t seg;
    uint32_t flags = 0;
    hsa_region_get_info(region, HSA_REGION_INFO_SEGMENT, &seg);
    if (seg != HSA_REGION_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
    hsa_region_get_info(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
    if (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) {
        *(hsa_region_t *)data = region;
        return HSA_STATUS_INFO_BREAK;
    }
    return HSA_STATUS_SUCCESS;
}
#endif
