/*
 * sched_eevdf.h - what the eevdf scheduler shows outside its file (for
 * tests); the policy itself is reached only through sched_eevdf_ops.
 */
#ifndef VS_SCHED_EEVDF_H
#define VS_SCHED_EEVDF_H

#include <stdint.h>

struct hv;
struct sched_ops;
struct vcpu;

extern const struct sched_ops sched_eevdf_ops;

/* v's virtual deadline and saved lag (ns of nice-0 virtual time). */
int64_t sched_eevdf_deadline(const struct hv *, const struct vcpu *);
int64_t sched_eevdf_lag(const struct hv *, const struct vcpu *);

#endif
