/*
 * schema.h - a store file's schema: the migration of an older store on a
 * read-write open (private to store/; st_store_check_path, store.h, checks
 * a file without opening it for writing).
 */
#ifndef ST_STORE_SCHEMA_H
#define ST_STORE_SCHEMA_H

#include <sqlite3.h>
#include <stddef.h>

/* In one transaction: a new store gets sql/schema.sql, an older one the
 * migrations to ST_SCHEMA_VERSION; either gets the combo columns of the
 * options table it lacks, and the views of sql/views.sql anew. 0, or -1
 * (-SQLITE_BUSY / -SQLITE_LOCKED: another run had the store; try again)
 * with err. */
int st_schema_migrate(sqlite3 *db, char *err, size_t n);

#endif
