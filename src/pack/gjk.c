/* Bridge to the distance and contact kernels of rve/dist.h. */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"

rve_status pack_gjk_separation(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                               double *sep, int *overlap)
{
    (void)A;
    (void)B;
    (void)t;
    *sep = 0;
    *overlap = 0;
    return RVE_EUSAGE; /* the distance kernel (issue 3) has not landed yet */
}
