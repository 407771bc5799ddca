// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// qcustomplot.h uses the lower-case Qt keywords that QT_NO_KEYWORDS removes: include it through
// this header, which defines them around the include only.
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
