// SPDX-License-Identifier: GPL-3.0-or-later
#include "tunedialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace paretune {

namespace {

QSpinBox* spinBox(QWidget* parent, int value, int minimum, int maximum, const QString& objectName) {
    auto* box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setValue(value);
    box->setObjectName(objectName);
    return box;
}

} // namespace

TuneDialog::TuneDialog(const TuneSettings& settings, const QString& context, QWidget* parent)
    : QDialog(parent), m_initial(settings) {
    setWindowTitle(tr("Tune"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Each round searches with the costs learned so far, runs plans "
                                "along the front and the best baselines on this machine, timed "
                                "interleaved, and learns from what was measured inside them. "
                                "Every round is stored in the sample library; the same settings "
                                "again resume after the stored rounds."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    m_rounds = spinBox(this, settings.rounds, 1, 20, QStringLiteral("rounds"));
    m_plans = spinBox(this, settings.plansPerRound, 1, 20, QStringLiteral("plansPerRound"));
    m_repeats = spinBox(this, settings.repeats, 1, 1000, QStringLiteral("repeats"));
    form->addRow(tr("Rounds (at most):"), m_rounds);
    form->addRow(tr("Front plans validated per round:"), m_plans);
    m_window = new QDoubleSpinBox(this);
    m_window->setRange(0.0, kMaxTuneWindowS);
    m_window->setDecimals(1);
    m_window->setSuffix(tr(" s"));
    m_window->setValue(settings.windowS);
    m_window->setObjectName(QStringLiteral("window"));
    m_window->setToolTip(tr("Where the plans are short, each runs more often, so that a round's "
                            "timed runs last this long: the median then carries less of the "
                            "machine's wandering speed. 0: exactly the runs above."));
    form->addRow(tr("Timed runs of each plan per round, at least:"), m_repeats);
    form->addRow(tr("Timed runs last, at least:"), m_window);
    layout->addLayout(form);
    auto* uses = new QLabel(context, this);
    uses->setWordWrap(true);
    uses->setObjectName(QStringLiteral("tuneContext"));
    layout->addWidget(uses);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

TuneSettings TuneDialog::settings() const {
    TuneSettings s = m_initial;
    s.rounds = m_rounds->value();
    s.plansPerRound = m_plans->value();
    s.repeats = m_repeats->value();
    s.windowS = m_window->value();
    return s;
}

} // namespace paretune
