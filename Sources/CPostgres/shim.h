#ifndef TOKENVAULT_CPOSTGRES_SHIM_H
#define TOKENVAULT_CPOSTGRES_SHIM_H

#include <libpq-fe.h>

// The PG_DIAG_* field codes are character-literal macros, which Swift does not import.
static inline int tokenvault_pq_diag_sqlstate(void) {
    return PG_DIAG_SQLSTATE;
}

static inline int tokenvault_pq_diag_message_primary(void) {
    return PG_DIAG_MESSAGE_PRIMARY;
}

#endif
