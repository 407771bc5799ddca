// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace paretune {

struct TuneOutcome;
class TuneRoundsModel;

/// The Tune dock: what the last tune did (rounds, devices, whether prediction and measurement
/// came to agree), one row per round (TuneRoundsModel: plans validated, max and median |error|,
/// the costs learned), and which claims of the final front over the baselines the last round's
/// measurements confirm or contradict, the contradicted ones first and marked.
class TunePanel : public QWidget {
    Q_OBJECT
public:
    explicit TunePanel(QWidget* parent = nullptr);

    void showOutcome(const TuneOutcome& outcome);
    /// Back to "no tune yet" (a new model).
    void clear();

    TuneRoundsModel* roundsModel() const { return m_rounds; }
    QString summaryText() const;
    /// The claims, as shown (rich text).
    QString claimsText() const;

private:
    QLabel* m_summary = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_claims = nullptr;
    TuneRoundsModel* m_rounds = nullptr;
};

/// The final front's claims in counts and lines: "2 confirmed, 1 contradicted, 0 only
/// predicted", then one line per contradicted claim ("Plan 3: better than …"), then confirmed
/// ones; rich text, contradicted lines in bold red.
QString claimsSummary(const TuneOutcome& outcome);

} // namespace paretune
