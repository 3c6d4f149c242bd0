/* gmsh_dl.c - the gmsh C API loaded on first use (internal).
 *
 * libgmsh pulls in about a hundred shared libraries (OpenCASCADE, FLTK,
 * OpenGL, ...).  Linked at start-up they cost every rve process about 48 MB
 * of resident memory and 70 ms before main, though most commands (fit,
 * raster, tess, gen, dist, pack, and every rank of an MPI run) never mesh.
 * So librve does not link it: the gmsh functions that src/mesh/gmsh.c calls
 * are defined here with gmshc.h's own prototypes and forward to the library,
 * which is dlopen()ed the first time one of them is called.
 *
 * If the library cannot be loaded, every call sets *ierr = 1 (the gmsh
 * convention for a failure) and gmshLoggerGetLastError returns dlopen's
 * message, so the caller's usual error path names the problem.  The handle
 * is written once under pthread_once and only read afterwards. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "mesh/mesh_internal.h"
#include <dlfcn.h>
#include <gmshc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RVE_GMSH_SONAME
#define RVE_GMSH_SONAME "libgmsh.so"
#endif

static struct {
    void *handle;
    char why[512];
} gmsh_lib;
static pthread_once_t gmsh_once = PTHREAD_ONCE_INIT;

/* RVE_GMSH_LIBRARY, when set, names another build of the same gmsh API
 * version (a path or a file name for the dynamic loader). */
static void gmsh_load(void)
{
    const char *name = getenv("RVE_GMSH_LIBRARY");
    if (!name || !*name)
        name = RVE_GMSH_SONAME;
    gmsh_lib.handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (!gmsh_lib.handle) {
        const char *e = dlerror();
        snprintf(gmsh_lib.why, sizeof gmsh_lib.why, "cannot load the gmsh library: %s", e ? e : name);
    }
}

const char *mesh_gmsh_unavailable(void)
{
    pthread_once(&gmsh_once, gmsh_load);
    return gmsh_lib.handle ? NULL : gmsh_lib.why;
}

/* The address of gmsh's function name, or NULL (and *ierr = 1 when ierr). */
static void *gmsh_symbol(const char *name, int *ierr)
{
    void *f = mesh_gmsh_unavailable() ? NULL : dlsym(gmsh_lib.handle, name);
    if (!f && ierr)
        *ierr = 1;
    return f;
}

/* f: a pointer to the function name of gmshc.h, loaded (or NULL).  POSIX
 * guarantees that dlsym's object pointer converts to a function pointer;
 * memcpy says so without a cast ISO C does not define. */
#define GMSH_FN(name, ierr)                                                                                  \
    __typeof__(name) *f = NULL;                                                                              \
    do {                                                                                                     \
        void *p_ = gmsh_symbol(#name, ierr);                                                                 \
        memcpy(&f, &p_, sizeof f);                                                                           \
    } while (0)

/* gmsh's own message, or the reason the library is missing (malloc'ed:
 * gmshFree or free releases it) */
void gmshLoggerGetLastError(char **error, int *ierr)
{
    const char *why = mesh_gmsh_unavailable();
    if (why) {
        *error = strdup(why);
        *ierr = 0;
        return;
    }
    GMSH_FN(gmshLoggerGetLastError, ierr);
    if (f)
        f(error, ierr);
}

void gmshFree(void *p)
{
    GMSH_FN(gmshFree, NULL);
    if (f)
        f(p);
    else
        free(p); /* strdup'ed above */
}

void gmshFinalize(int *ierr)
{
    GMSH_FN(gmshFinalize, ierr);
    if (f)
        f(ierr);
}

void gmshInitialize(int argc, char **argv, const int readConfigFiles, int *ierr)
{
    GMSH_FN(gmshInitialize, ierr);
    if (f)
        f(argc, argv, readConfigFiles, ierr);
}

void gmshLoggerStart(int *ierr)
{
    GMSH_FN(gmshLoggerStart, ierr);
    if (f)
        f(ierr);
}

void gmshLoggerStop(int *ierr)
{
    GMSH_FN(gmshLoggerStop, ierr);
    if (f)
        f(ierr);
}

void gmshModelAdd(const char *name, int *ierr)
{
    GMSH_FN(gmshModelAdd, ierr);
    if (f)
        f(name, ierr);
}

int gmshModelAddPhysicalGroup(const int dim, int *tags, size_t tags_n, const int tag, int *ierr)
{
    GMSH_FN(gmshModelAddPhysicalGroup, ierr);
    return f ? f(dim, tags, tags_n, tag, ierr) : 0;
}

int gmshModelGeoAddCurveLoop(int *curveTags, size_t curveTags_n, const int tag, const int reorient, int *ierr)
{
    GMSH_FN(gmshModelGeoAddCurveLoop, ierr);
    return f ? f(curveTags, curveTags_n, tag, reorient, ierr) : 0;
}

int gmshModelGeoAddLine(const int startTag, const int endTag, const int tag, int *ierr)
{
    GMSH_FN(gmshModelGeoAddLine, ierr);
    return f ? f(startTag, endTag, tag, ierr) : 0;
}

int gmshModelGeoAddPlaneSurface(int *wireTags, size_t wireTags_n, const int tag, int *ierr)
{
    GMSH_FN(gmshModelGeoAddPlaneSurface, ierr);
    return f ? f(wireTags, wireTags_n, tag, ierr) : 0;
}

int gmshModelGeoAddPoint(const double x, const double y, const double z, const double meshSize,
                         const int tag, int *ierr)
{
    GMSH_FN(gmshModelGeoAddPoint, ierr);
    return f ? f(x, y, z, meshSize, tag, ierr) : 0;
}

int gmshModelGeoAddSurfaceLoop(int *surfaceTags, size_t surfaceTags_n, const int tag, int *ierr)
{
    GMSH_FN(gmshModelGeoAddSurfaceLoop, ierr);
    return f ? f(surfaceTags, surfaceTags_n, tag, ierr) : 0;
}

int gmshModelGeoAddVolume(int *shellTags, size_t shellTags_n, const int tag, int *ierr)
{
    GMSH_FN(gmshModelGeoAddVolume, ierr);
    return f ? f(shellTags, shellTags_n, tag, ierr) : 0;
}

void gmshModelGeoSynchronize(int *ierr)
{
    GMSH_FN(gmshModelGeoSynchronize, ierr);
    if (f)
        f(ierr);
}

void gmshModelGetEntities(int **dimTags, size_t *dimTags_n, const int dim, int *ierr)
{
    GMSH_FN(gmshModelGetEntities, ierr);
    if (f)
        f(dimTags, dimTags_n, dim, ierr);
}

void gmshModelMeshGenerate(const int dim, int *ierr)
{
    GMSH_FN(gmshModelMeshGenerate, ierr);
    if (f)
        f(dim, ierr);
}

void gmshModelMeshGetElementsByType(const int elementType, size_t **elementTags, size_t *elementTags_n,
                                    size_t **nodeTags, size_t *nodeTags_n, const int tag, const size_t task,
                                    const size_t numTasks, int *ierr)
{
    GMSH_FN(gmshModelMeshGetElementsByType, ierr);
    if (f)
        f(elementType, elementTags, elementTags_n, nodeTags, nodeTags_n, tag, task, numTasks, ierr);
}

void gmshModelMeshGetNodes(size_t **nodeTags, size_t *nodeTags_n, double **coord, size_t *coord_n,
                           double **parametricCoord, size_t *parametricCoord_n, const int dim, const int tag,
                           const int includeBoundary, const int returnParametricCoord, int *ierr)
{
    GMSH_FN(gmshModelMeshGetNodes, ierr);
    if (f)
        f(nodeTags, nodeTags_n, coord, coord_n, parametricCoord, parametricCoord_n, dim, tag, includeBoundary, returnParametricCoord, ierr);
}

void gmshModelMeshGetPeriodicNodes(const int dim, const int tag, int *tagMaster, size_t **nodeTags,
                                   size_t *nodeTags_n, size_t **nodeTagsMaster, size_t *nodeTagsMaster_n,
                                   double **affineTransform, size_t *affineTransform_n,
                                   const int includeHighOrderNodes, int *ierr)
{
    GMSH_FN(gmshModelMeshGetPeriodicNodes, ierr);
    if (f)
        f(dim, tag, tagMaster, nodeTags, nodeTags_n, nodeTagsMaster, nodeTagsMaster_n, affineTransform, affineTransform_n, includeHighOrderNodes, ierr);
}

void gmshModelMeshOptimize(const char *method, const int force, const int niter, int *dimTags,
                           size_t dimTags_n, int *ierr)
{
    GMSH_FN(gmshModelMeshOptimize, ierr);
    if (f)
        f(method, force, niter, dimTags, dimTags_n, ierr);
}

void gmshModelMeshSetNode(const size_t nodeTag, double *coord, size_t coord_n, double *parametricCoord,
                          size_t parametricCoord_n, int *ierr)
{
    GMSH_FN(gmshModelMeshSetNode, ierr);
    if (f)
        f(nodeTag, coord, coord_n, parametricCoord, parametricCoord_n, ierr);
}

void gmshModelMeshSetOrder(const int order, int *ierr)
{
    GMSH_FN(gmshModelMeshSetOrder, ierr);
    if (f)
        f(order, ierr);
}

void gmshModelMeshSetPeriodic(const int dim, int *tags, size_t tags_n, int *tagsMaster, size_t tagsMaster_n,
                              double *affineTransform, size_t affineTransform_n, int *ierr)
{
    GMSH_FN(gmshModelMeshSetPeriodic, ierr);
    if (f)
        f(dim, tags, tags_n, tagsMaster, tagsMaster_n, affineTransform, affineTransform_n, ierr);
}

void gmshModelSetPhysicalName(const int dim, const int tag, const char *name, int *ierr)
{
    GMSH_FN(gmshModelSetPhysicalName, ierr);
    if (f)
        f(dim, tag, name, ierr);
}

void gmshOptionSetNumber(const char *name, const double value, int *ierr)
{
    GMSH_FN(gmshOptionSetNumber, ierr);
    if (f)
        f(name, value, ierr);
}

void gmshWrite(const char *fileName, int *ierr)
{
    GMSH_FN(gmshWrite, ierr);
    if (f)
        f(fileName, ierr);
}
