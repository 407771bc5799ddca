// paretune-workbench [MODEL] [--screenshot FILE]
// Opens MODEL, or the bundled sample model when none is given.
#include "mainwindow.h"
#include "paretoplot.h"
#include "paretune/config.h"
#include "search/pareto_search.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QLibraryInfo>
#include <QLocale>
#include <QTimer>
#include <QTranslator>

#include <cstdio>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Paretune Workbench"));
    QApplication::setOrganizationName(QStringLiteral("Paretune"));
    QApplication::setApplicationVersion(QStringLiteral(PARETUNE_VERSION));

    QTranslator qtTranslator;
    if (qtTranslator.load(QLocale(), QStringLiteral("qtbase"), QStringLiteral("_"),
                          QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QApplication::installTranslator(&qtTranslator);
    }
    QTranslator appTranslator;
    if (appTranslator.load(QLocale(), QStringLiteral("paretune"), QStringLiteral("_"),
                           QStringLiteral(":/i18n"))) {
        QApplication::installTranslator(&appTranslator);
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main", "Place neural-network operators on the devices of this machine."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QApplication::translate("main", "ONNX model to open"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QApplication::translate("main",
                                "Save a picture of the window once the model is shown, then quit."),
        QStringLiteral("file"));
    parser.addOption(screenshot);
    const QCommandLineOption search(
        QStringLiteral("search"),
        QApplication::translate("main", "After loading, search placements on the example catalog's "
                                        "modelled devices and select the fastest plan."));
    parser.addOption(search);
    parser.process(app);

    paretune::MainWindow window;
    if (parser.isSet(screenshot)) {
        const QString file = parser.value(screenshot);
        auto save = [&window, file] {
            QTimer::singleShot(200, &window, [&window, file] {
                const bool ok = window.grab().save(file);
                std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "saved" : "cannot save",
                             qPrintable(file));
                QApplication::exit(ok ? 0 : 1);
            });
        };
        if (parser.isSet(search)) {
            QObject::connect(&window, &paretune::MainWindow::planShown, &window, save);
        } else {
            QObject::connect(&window, &paretune::MainWindow::modelShown, &window, save);
        }
        QObject::connect(&window, &paretune::MainWindow::errorShown, &window, [](const QString& m) {
            std::fprintf(stderr, "%s\n", qPrintable(m));
            QApplication::exit(2);
        });
    }
    if (parser.isSet(search)) {
        QObject::connect(&window, &paretune::MainWindow::modelShown, &window,
                         [&window] { window.searchPlacements(paretune::SearchOptions{}); });
        QObject::connect(&window, &paretune::MainWindow::searchShown, &window,
                         [&window] { window.paretoPlot()->selectPlan(0); });
    }
    window.show();
    const QStringList args = parser.positionalArguments();
    if (args.isEmpty()) {
        window.openSampleModel();
    } else {
        window.openModel(args.first());
    }
    return QApplication::exec();
}
