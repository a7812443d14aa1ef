#ifndef TOKENVAULT_CSODIUM_SHIM_H
#define TOKENVAULT_CSODIUM_SHIM_H

#include <sodium.h>

#endif
