// paretune-workbench [MODEL|WORKSPACE] [--db PATH] [--catalog FILE] [--devices IDS]
//                    [--screenshot PNG [--state graph|pareto|timeline|profile]] [--search]
//                    [--validate]
// Opens MODEL (or a .paretune workspace), or the bundled sample model when none is given.
#include "common/openmp_wait.h"
#include "mainwindow.h"
#include "paretoplot.h"
#include "paretune/config.h"
#include "planjobs.h"
#include "screenshot.h"
#include "search/pareto_search.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QLibraryInfo>
#include <QLocale>
#include <QTimer>
#include <QTranslator>

#include <cstdio>

int main(int argc, char** argv) {
    paretune::restartWithPassiveOpenMpWait(argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Paretune Workbench"));
    QApplication::setOrganizationName(QStringLiteral("Paretune"));
    QApplication::setApplicationVersion(QStringLiteral(PARETUNE_VERSION));

    // The language chosen in Settings > Language, else the system's.
    const QString language = paretune::MainWindow::languageSetting();
    if (!language.isEmpty()) {
        QLocale::setDefault(QLocale(language));
    }
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
    parser.addPositionalArgument(
        QStringLiteral("model"),
        QApplication::translate("main", "ONNX model or .paretune workspace to open"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QApplication::translate("main",
                                "Save a picture of the window once the model is shown, then quit."),
        QStringLiteral("file"));
    parser.addOption(screenshot);
    const QCommandLineOption state(
        QStringLiteral("state"),
        QApplication::translate("main", "What --screenshot shows: graph, pareto, timeline or "
                                        "profile (the last three after a quick search on the "
                                        "catalog's modelled devices)."),
        QStringLiteral("state"), QStringLiteral("graph"));
    parser.addOption(state);
    const QCommandLineOption db(QStringLiteral("db"),
                                QApplication::translate("main", "Sample library (SQLite file)."),
                                QStringLiteral("path"));
    parser.addOption(db);
    const QCommandLineOption catalogOption(
        QStringLiteral("catalog"),
        QApplication::translate("main", "Device catalog (JSON) for modelled devices."),
        QStringLiteral("file"));
    parser.addOption(catalogOption);
    const QCommandLineOption search(
        QStringLiteral("search"),
        QApplication::translate("main", "After loading, search placements on the example catalog's "
                                        "modelled devices and select the fastest plan."));
    parser.addOption(search);
    const QCommandLineOption devices(
        QStringLiteral("devices"),
        QApplication::translate("main", "Catalog devices to search on, separated by commas "
                                        "(default: every device of the catalog)."),
        QStringLiteral("ids"));
    parser.addOption(devices);
    const QCommandLineOption validate(
        QStringLiteral("validate"),
        QApplication::translate("main", "After the search, validate the chosen plan on this "
                                        "machine's devices (a screenshot waits for it)."));
    parser.addOption(validate);
    parser.process(app);

    const QString shotState = parser.value(state);
    if (!paretune::screenshotStates().contains(shotState)) {
        std::fprintf(stderr, "--state %s: expected one of %s\n", qPrintable(shotState),
                     qPrintable(paretune::screenshotStates().join(QStringLiteral(", "))));
        return 2;
    }
    paretune::MainWindow window;
    if (parser.isSet(db)) {
        window.setDatabasePath(parser.value(db));
    }
    if (parser.isSet(catalogOption)) {
        QString error;
        const QMetaObject::Connection c = QObject::connect(
            &window, &paretune::MainWindow::errorShown, [&error](const QString& m) { error = m; });
        const bool ok = window.setCatalogPath(parser.value(catalogOption));
        QObject::disconnect(c);
        if (!ok) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 2;
        }
    }
    if (parser.isSet(devices)) {
        window.setSearchDevices(parser.value(devices).split(QLatin1Char(','), Qt::SkipEmptyParts));
    }
    // --search, --validate, or a screenshot of a state that shows a plan: search after loading
    // and choose the first plan of the front (quickly for a screenshot); --validate then runs it.
    const bool shot = parser.isSet(screenshot);
    const bool withValidation = parser.isSet(validate);
    const bool withPlan = parser.isSet(search) || withValidation ||
                          (shot && paretune::screenshotNeedsPlan(shotState));
    if (shot) {
        const QString file = parser.value(screenshot);
        auto save = [&window, file, shotState] {
            paretune::prepareScreenshot(window, shotState);
            QTimer::singleShot(400, &window, [&window, file, shotState] {
                const bool ok = paretune::grabScreenshot(window, shotState).save(file);
                std::fprintf(ok ? stdout : stderr, "%s %s\n", ok ? "saved" : "cannot save",
                             qPrintable(file));
                QApplication::exit(ok ? 0 : 1);
            });
        };
        if (withValidation) {
            QObject::connect(window.validateJob(), &paretune::ValidateJob::validationFinished,
                             &window, save);
        } else if (withPlan) {
            QObject::connect(&window, &paretune::MainWindow::planShown, &window, save);
        } else {
            QObject::connect(&window, &paretune::MainWindow::modelShown, &window, save);
        }
        QObject::connect(&window, &paretune::MainWindow::errorShown, &window, [](const QString& m) {
            std::fprintf(stderr, "%s\n", qPrintable(m));
            QApplication::exit(2);
        });
    }
    if (withPlan) {
        paretune::SearchOptions options;
        if (shot && !parser.isSet(search)) {
            options.population = 80;
            options.generations = 80;
        }
        QObject::connect(&window, &paretune::MainWindow::modelShown, &window,
                         [&window, options] { window.searchPlacements(options); });
        QObject::connect(&window, &paretune::MainWindow::searchShown, &window,
                         [&window] { window.paretoPlot()->selectPlan(0); });
    }
    if (withValidation) {
        QObject::connect(&window, &paretune::MainWindow::planShown, &window,
                         [&window] { window.validateShownPlan(); });
    }
    window.show();
    const QStringList args = parser.positionalArguments();
    if (args.isEmpty()) {
        window.openSampleModel();
    } else {
        window.openPath(args.first());
    }
    return QApplication::exec();
}
