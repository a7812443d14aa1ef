#ifndef TOKENVAULT_CSQLITE_SHIM_H
#define TOKENVAULT_CSQLITE_SHIM_H

#include <sqlite3.h>
#include <string.h>

// SQLITE_TRANSIENT is a macro over a cast function pointer, which Swift cannot import.
static inline sqlite3_destructor_type tokenvault_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// The descriptor of the main database file, or -1 when it cannot be known. SQLite has no public
// call that returns it, so this reads the first fields of the unix VFS's file object (pMethod,
// pVfs, pInode, h), unchanged since SQLite 3.7, and only when a unix VFS opened the file. The
// caller compares the descriptor's device and inode with a file it checked itself, so a layout
// it misread refuses the open rather than letting an unchecked file through.
struct tokenvault_sqlite_unix_file_prefix {
    const sqlite3_io_methods *methods;
    sqlite3_vfs *vfs;
    void *inode;
    int descriptor;
};

static inline int tokenvault_sqlite_main_descriptor(sqlite3 *db) {
    sqlite3_vfs *vfs = NULL;
    sqlite3_file *file = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) != SQLITE_OK || vfs == NULL
        || vfs->zName == NULL || strncmp(vfs->zName, "unix", 4) != 0) {
        return -1;
    }
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || file == NULL
        || file->pMethods == NULL) {
        return -1;
    }
    return ((const struct tokenvault_sqlite_unix_file_prefix *)file)->descriptor;
}

#endif
