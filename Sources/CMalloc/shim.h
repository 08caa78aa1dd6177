#ifndef PUSHBRIDGE_CMALLOC_SHIM_H
#define PUSHBRIDGE_CMALLOC_SHIM_H
/* glibc's malloc extensions (malloc_trim, mallopt with M_ARENA_MAX), which the Glibc module does
   not export. */
#include <malloc.h>
#endif
