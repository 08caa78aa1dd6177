// Nothing to compile: this target only carries the declaration in include/CFuzzerDriver.h
// (SwiftPM wants a source file in every C target). The definition is in libFuzzer.
#include "CFuzzerDriver.h"
