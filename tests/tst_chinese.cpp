// SPDX-License-Identifier: GPL-3.0-or-later
// The workbench in Chinese: with the zh_CN translation installed, the main window, after a
// model is shown and after a search with a plan chosen, shows no English word outside an
// allow-list (model, node, op and device names, file names, numbers, units, product names).
// Walks every visible label, button, action, dock title, tab, group box and item-view header.
#include "device/device.h"
#include "graph/onnx_importer.h"
#include "mainwindow.h"
#include "paretoplot.h"
#include "search/pareto_search.h"
#include "workbench_fixture.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabBar>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTranslator>
#include <QtTest>

using namespace paretune;

class TestChinese : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void mainWindowIsChinese();

private:
    QTranslator m_translator;
};

namespace {

/// Words a Chinese window may show in Latin letters: units, formats, product and standard names.
const QSet<QString>& allowedWords() {
    static const QSet<QString> words = [] {
        QSet<QString> w;
        for (const char* word :
             {"ms",     "us",     "µs",     "mJ",     "W",      "MiB",      "KiB",      "GiB",
              "MB",     "KB",     "GB",     "B",      "GFLOP",  "GFLOPs",   "FLOPs",    "FLOP",
              "MACs",   "Hz",     "GHz",    "MHz",    "ONNX",   "Paretune", "Pareto",   "CPU",
              "GPU",    "NPU",    "DSP",    "CUDA",   "SQLite", "LibTorch", "HEFT",     "heft",
              "greedy", "all",    "cpu",    "gpu",    "npu",    "dsp",      "cuda",     "opset",
              "fp",     "bf",     "int",    "NCHW",   "RAPL",   "NVML",     "JSON",     "CSV",
              "PNG",    "SVG",    "XDG",    "zh",     "CN",     "en",       "p10",      "p90",
              "Ctrl",   "Shift",  "Alt",    "Esc",    "F1",     "F5",       "x",        "e",
              "X",      "Y",      "K",      "M",      "G",      "µs",       "µJ",       "uJ",
              "mW",     "MFLOPs", "GFLOPs", "KFLOPs", "TFLOPs", "Roofline", "roofline", "bf16",
              "int8",   "fp32",   "nhwc",   "NHWC"}) {
            w.insert(QString::fromUtf8(word));
        }
        return w;
    }();
    return words;
}

/// The English words left in `text` once the names it may hold are taken out.
QStringList englishWords(QString text, const QStringList& names) {
    if (text.contains(QLatin1Char('<'))) { // rich text: its visible text only
        QTextDocument doc;
        doc.setHtml(text);
        text = doc.toPlainText();
    }
    static const QRegularExpression mnemonic(QStringLiteral("\\(&?[A-Za-z]\\)|&(?=[A-Za-z])"));
    text.remove(mnemonic);
    text.replace(QStringLiteral("&nbsp;"), QStringLiteral(" "));
    for (const QString& name : names) {
        text.replace(name, QStringLiteral(" "));
    }
    // File names and paths; hexadecimal fingerprints; element types (float32[1,3,64,64]).
    static const QRegularExpression path(QStringLiteral("\\S*[/\\\\]\\S*|\\S+\\.[A-Za-z]{2,5}\\b"));
    static const QRegularExpression hex(QStringLiteral("\\b[0-9a-f]{8,}\\b"));
    static const QRegularExpression dtype(
        QStringLiteral("\\b(float|bfloat|int|uint)(8|16|32|64)\\b|\\bbool\\b"));
    text.replace(path, QStringLiteral(" "));
    text.replace(hex, QStringLiteral(" "));
    text.replace(dtype, QStringLiteral(" "));
    static const QRegularExpression word(QStringLiteral("[A-Za-zµ][A-Za-z0-9_µ]*"));
    QStringList left;
    for (auto it = word.globalMatch(text); it.hasNext();) {
        const QString w = it.next().captured(0);
        if (!allowedWords().contains(w) && !allowedWords().contains(w.toLower())) {
            left << w;
        }
    }
    return left;
}

} // namespace

void TestChinese::initTestCase() {
    QLocale::setDefault(QLocale(QStringLiteral("zh_CN")));
    QVERIFY2(m_translator.load(QStringLiteral(PARETUNE_ZH_CN_QM)), PARETUNE_ZH_CN_QM);
    QCoreApplication::installTranslator(&m_translator);
}

void TestChinese::mainWindowIsChinese() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openSampleModel();
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 30000);

    QStringList names;
    for (const Node& n : window.currentModel()->graph.nodes) {
        names << QString::fromStdString(n.name) << QString::fromStdString(n.opType);
        for (const Attribute& a : n.attributes) { // ONNX attribute names (kernel_shape …)
            names << QString::fromStdString(a.name);
        }
    }
    names << QString::fromStdString(window.currentModel()->graph.name);
    for (const Device& d : discoverDevices().devices) { // hardware names, as the system gives them
        names << QString::fromStdString(d.name);
    }
    for (const Tensor& t : window.currentModel()->graph.tensors) {
        names << QString::fromStdString(t.name);
    }
    // Longest first, so that a name is never cut by a shorter one inside it.
    std::sort(names.begin(), names.end(),
              [](const QString& a, const QString& b) { return a.size() > b.size(); });
    names.removeAll(QString());

    int pages = 0; // non-empty text pages checked (Node properties)
    auto walk = [&](const char* state) {
        QStringList problems;
        auto check = [&](const QString& where, const QString& text) {
            const QStringList left = englishWords(text, names);
            if (!left.isEmpty()) {
                problems << QStringLiteral("%1 (%2): \"%3\" — %4")
                                .arg(where, QLatin1String(state), text.left(120),
                                     left.join(QLatin1Char(' ')));
            }
        };
        check(QStringLiteral("window title"), window.windowTitle());
        for (QAction* menu : window.menuBar()->actions()) {
            check(QStringLiteral("menu"), menu->text());
            if (menu->menu() != nullptr) {
                for (QAction* a : menu->menu()->actions()) {
                    check(QStringLiteral("menu item"), a->text());
                }
            }
        }
        for (QWidget* w : window.findChildren<QWidget*>()) {
            if (!w->isVisibleTo(&window)) {
                continue;
            }
            const QString kind = QString::fromLatin1(w->metaObject()->className());
            if (auto* label = qobject_cast<QLabel*>(w)) {
                check(kind, label->text());
            } else if (auto* button = qobject_cast<QAbstractButton*>(w)) {
                check(kind, button->text());
            } else if (auto* dock = qobject_cast<QDockWidget*>(w)) {
                check(kind, dock->windowTitle());
            } else if (auto* browser = qobject_cast<QTextBrowser*>(w)) {
                check(kind, browser->toPlainText());
                pages += browser->toPlainText().isEmpty() ? 0 : 1;
            } else if (auto* group = qobject_cast<QGroupBox*>(w)) {
                check(kind, group->title());
            } else if (auto* tabs = qobject_cast<QTabBar*>(w)) {
                for (int i = 0; i < tabs->count(); ++i) {
                    check(kind, tabs->tabText(i));
                }
            } else if (auto* view = qobject_cast<QAbstractItemView*>(w); view && view->model()) {
                const QAbstractItemModel* m = view->model();
                for (int c = 0; c < m->columnCount(); ++c) {
                    check(kind + QStringLiteral(" header"),
                          m->headerData(c, Qt::Horizontal).toString());
                    for (int r = 0; r < std::min(m->rowCount(), 60); ++r) {
                        check(kind + QStringLiteral(" cell"), m->index(r, c).data().toString());
                    }
                }
            }
        }
        return problems;
    };

    // Every panel in turn in front (tabbed ones are hidden behind their neighbours).
    auto walkEveryPanel = [&](const char* state) {
        QStringList found = walk(state);
        for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
            dock->show();
            dock->raise();
            QCoreApplication::processEvents();
            found += walk(state);
        }
        return found;
    };
    QStringList problems = walkEveryPanel("model shown");
    SearchOptions options;
    options.population = 16;
    options.generations = 4;
    QSignalSpy searched(&window, &MainWindow::searchShown);
    QSignalSpy planShown(&window, &MainWindow::planShown);
    window.searchPlacements(options);
    QTRY_COMPARE_WITH_TIMEOUT(searched.count(), 1, 60000);
    window.paretoPlot()->selectPlan(0);
    QTRY_VERIFY_WITH_TIMEOUT(planShown.count() >= 1, 30000);
    problems += walkEveryPanel("plan shown");
    problems.removeDuplicates();
    QVERIFY(pages > 0);
    for (const QString& p : problems) {
        qWarning("%s", qPrintable(p));
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

QTEST_MAIN(TestChinese)
#include "tst_chinese.moc"
