// SPDX-License-Identifier: GPL-3.0-or-later
// How a connection opens a library, whatever the backend: its classification and the schema
// migrations.
#include "library_connection.h"

#include "schema.h"

namespace paretune::store {

void Connection::migrate(int from) {
    for (const store::Migration& m : store::migrations()) {
        if (m.version > from) {
            exec(std::string(sql(m.sql, m.postgresSql)), "create the sample library's tables");
        }
    }
    if (from > 0 && from < 5) {
        fillSampleKeys(*this); // version 5 keys every sample
    }
    backend->writeVersion();
}

void Connection::classifyAndMigrate() {
    version = backend->readVersion(); // nothing is written before this says it is ours or empty
    backend->configure();
    if (version < SampleLibrary::kSchemaVersion) {
        WriteTransaction transaction(*this);
        backend->lockForMigration();
        version = backend->readVersion(); // another process may have migrated it meanwhile
        if (version < SampleLibrary::kSchemaVersion) {
            migrate(version);
            version = SampleLibrary::kSchemaVersion;
        }
        transaction.commit();
    }
}

} // namespace paretune::store
