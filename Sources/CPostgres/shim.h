#ifndef TOKENVAULT_CPOSTGRES_SHIM_H
#define TOKENVAULT_CPOSTGRES_SHIM_H

#include <libpq-fe.h>
#include <poll.h>

#endif
