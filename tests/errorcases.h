// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The broken inputs of tests/data/errors/: each `<input>.expected` names the message the
// input must produce, as "error: <text>" (import fails) or "warning: <text>" (import succeeds
// and reports it). `<input>` need not exist (the missing-file case). Models are at the top;
// JSON documents in plans/ and manifests/.
#include "testpaths.h"

#include <QDirIterator>
#include <QFile>
#include <QString>
#include <QVector>

struct ErrorCase {
    QString name;  ///< path relative to the errors folder
    QString input; ///< absolute path of the input
    bool fatal = true;
    QString message; ///< text the error or warning must contain
};

/// The cases whose input name ends with `suffix`: ".onnx" (models for the importer), ".json"
/// (plans files under plans/, bundle manifests under manifests/).
inline QVector<ErrorCase> errorCases(const QString& suffix = QStringLiteral(".onnx"),
                                     const QString& folder = QString()) {
    const QString root = QStringLiteral(PARETUNE_TEST_DATA_DIR "/errors");
    QVector<ErrorCase> cases;
    QDirIterator it(folder.isEmpty() ? root : root + QLatin1Char('/') + folder,
                    {QLatin1Char('*') + suffix + QStringLiteral(".expected")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            continue;
        }
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        ErrorCase c;
        c.input = path.chopped(int(qstrlen(".expected")));
        c.name = c.input.mid(root.size() + 1);
        c.fatal = line.startsWith(QLatin1String("error:"));
        c.message = line.mid(line.indexOf(QLatin1Char(':')) + 1).trimmed();
        cases.push_back(c);
    }
    std::sort(cases.begin(), cases.end(),
              [](const ErrorCase& a, const ErrorCase& b) { return a.name < b.name; });
    return cases;
}
