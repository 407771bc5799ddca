// SPDX-License-Identifier: GPL-3.0-or-later
#include "tunepanel.h"

#include "placementsearch.h"
#include "tunejob.h"
#include "tuneroundsmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>

namespace paretune {

TunePanel::TunePanel(QWidget* parent) : QWidget(parent), m_rounds(new TuneRoundsModel(this)) {
    auto* layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setObjectName(QStringLiteral("tuneSummary"));
    layout->addWidget(m_summary);
    m_table = new QTableView(this);
    m_table->setModel(m_rounds);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    // The rounds beside the claims, each scrolling on its own.
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    m_claims = new QLabel;
    m_claims->setWordWrap(true);
    m_claims->setTextFormat(Qt::RichText);
    m_claims->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_claims->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_claims->setObjectName(QStringLiteral("tuneClaims"));
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_claims);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    split->addWidget(scroll);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({600, 500});
    scroll->setMinimumWidth(260);
    layout->addWidget(split, 1);
    clear();
}

void TunePanel::clear() {
    m_rounds->setRounds({});
    m_summary->setText(tr("No tune yet: Workflow > Tune searches, validates plans on this "
                          "machine's devices and learns from them, round by round."));
    m_claims->clear();
}

void TunePanel::showOutcome(const TuneOutcome& outcome) {
    m_rounds->setRounds(outcome.rounds);
    m_table->resizeColumnsToContents();
    QStringList devices;
    if (outcome.search) {
        for (const std::string& id : outcome.search->deviceIds) {
            devices << QString::fromStdString(id);
        }
    }
    const QString state =
        outcome.cancelled ? tr("cancelled during round %1 (not stored)")
                                .arg(outcome.rounds.empty() ? 1 : outcome.rounds.back().index + 2)
        : outcome.converged
            ? tr("converged: every validated plan's latency within %1 % of its prediction")
                  .arg(outcome.targetError * 100.0, 0, 'f', 0)
            : tr("not converged within %n round(s) (target %1 %)", "", outcome.settings.rounds)
                  .arg(outcome.targetError * 100.0, 0, 'f', 0);
    m_summary->setText(tr("Tune on %1: %n round(s), %2 front plans per round and the best "
                          "baselines, %3 interleaved runs each; %4. Stored in %5.",
                          "", static_cast<int>(outcome.rounds.size()))
                           .arg(devices.join(QStringLiteral(", ")))
                           .arg(outcome.settings.plansPerRound)
                           .arg(outcome.settings.repeats)
                           .arg(state, outcome.dbPath));
    m_claims->setText(claimsSummary(outcome));
}

QString TunePanel::summaryText() const {
    return m_summary->text();
}

QString TunePanel::claimsText() const {
    return m_claims->text();
}

QString claimsSummary(const TuneOutcome& outcome) {
    int confirmed = 0;
    int contradicted = 0;
    int predicted = 0;
    QStringList contradictedLines;
    QStringList confirmedLines;
    for (std::size_t i = 0; i < outcome.claims.size(); ++i) {
        for (const PlanClaim& c : outcome.claims[i]) {
            const QString line =
                TunePanel::tr("Plan %1: %2").arg(i).arg(claimText(c)).toHtmlEscaped();
            if (c.contradicted()) {
                ++contradicted;
                contradictedLines << QStringLiteral("<b><font color=\"#c00000\">") + line +
                                         QStringLiteral("</font></b>");
            } else if (c.status == QLatin1String("confirmed")) {
                ++confirmed;
                confirmedLines << line;
            } else {
                ++predicted;
            }
        }
    }
    if (confirmed + contradicted + predicted == 0) {
        return TunePanel::tr("No plan of the final front claims to beat a baseline.");
    }
    constexpr int kListed = 8;
    if (confirmedLines.size() > kListed) {
        const auto more = confirmedLines.size() - kListed;
        confirmedLines = confirmedLines.mid(0, kListed);
        confirmedLines << TunePanel::tr("and %1 more confirmed").arg(more);
    }
    return TunePanel::tr("<b>Claims of the final front over the baselines</b>, checked against "
                         "the last round's measurements: %1 confirmed, %2 contradicted, %3 only "
                         "predicted (not measured)")
               .arg(confirmed)
               .arg(contradicted)
               .arg(predicted) +
           QStringLiteral("<br>") +
           (contradictedLines + confirmedLines).join(QStringLiteral("<br>"));
}

} // namespace paretune
