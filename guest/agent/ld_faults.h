/* SPDX-License-Identifier: MIT */
/* The agent's part in faults on pool LDs (ld_faults.c). */
#ifndef CXLBED_AGENT_LD_FAULTS_H
#define CXLBED_AGENT_LD_FAULTS_H

#include <json-c/json.h>

/* /run/cxlbed/lds/SERIAL.json from attach-ld's @args and result @res. */
void ld_registry_add(json_object *args, json_object *res);
void ld_registry_remove(unsigned long long serial);
/* Let the LD's internal (RAS) errors through AER; notes it in @res. */
int ld_unmask_ras(const char *memdev, json_object *res);
/* ld-fault {action: poison-scan | memory-failure, hpa, length} */
json_object *cmd_ld_fault(json_object *args, char *err);

#endif
