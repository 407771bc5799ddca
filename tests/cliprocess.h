// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs the paretune command line as a child process, for the CLI suites.
#include "testpaths.h"

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

struct CliRun {
    int exitCode = -1; ///< -1 when the process crashed or did not finish in time
    QByteArray out;
    QByteArray err;
};

inline CliRun
runParetune(const QStringList& args, int timeoutMs = 300000,
            const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(PARETUNE_CLI_PATH), args);
    const bool finished = process.waitForFinished(timeoutMs);
    return {finished && process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput(), process.readAllStandardError()};
}
