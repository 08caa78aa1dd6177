#ifndef PUSHBRIDGE_CYAML_SHIM_H
#define PUSHBRIDGE_CYAML_SHIM_H
#include <yaml.h>
#endif
