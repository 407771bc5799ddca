// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobprogress.h"

namespace paretune {

void JobProgress::report(double fraction, const std::string& message) {
    // Emitted from the worker thread: receivers connect with Qt::QueuedConnection.
    Q_EMIT progressed(fraction, QString::fromStdString(message));
}

} // namespace paretune
