// SPDX-License-Identifier: GPL-3.0-or-later
// paretune-workbench [MODEL|WORKSPACE] [--db PATH] [--catalog FILE] [--devices IDS]
//                    [--screenshot PNG [--state graph|pareto|timeline|profile|tune|window]]
//                    [--search] [--validate] [--tune]
// Opens MODEL (or a .paretune workspace), or the sample model when none is given (the installed
// one, else the copy in the resources).
#include "common/data_folders.h"
#include "common/host_memory.h"
#include "common/input_error.h"
#include "librarylocation.h"
#include "mainwindow.h"
#include "paretoplot.h"
#include "paretune/config.h"
#include "planjobs.h"
#include "screenshot.h"
#include "search/pareto_search.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEvent>
#include <QLibraryInfo>
#include <QLocale>
#include <QTimer>
#include <QTranslator>

#include <cstdio>

namespace paretune {

/// Prints "first paint after N ms" when the watched window paints for the first time.
class FirstPaintReporter : public QObject {
public:
    FirstPaintReporter(bool quit, QObject* parent) : QObject(parent), m_quit(quit) {
        m_clock.start();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Paint && !m_reported) {
            m_reported = true;
            std::printf("first paint after %lld ms\n", static_cast<long long>(m_clock.elapsed()));
            std::fflush(stdout);
            if (m_quit) {
                QTimer::singleShot(0, qApp, [] { QApplication::exit(0); });
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QElapsedTimer m_clock;
    bool m_quit;
    bool m_reported = false;
};

} // namespace paretune

namespace {

/// The workbench's options, their help texts translated by the translators installed when it
/// is made.
struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption help = parser.addHelpOption();
    QCommandLineOption version = parser.addVersionOption();
    QCommandLineOption screenshot{
        QStringLiteral("screenshot"),
        QCoreApplication::translate(
            "main", "Save a picture of the window once the model is shown, then quit."),
        QStringLiteral("file")};
    QCommandLineOption state{
        QStringLiteral("state"),
        QCoreApplication::translate("main", "What --screenshot shows: graph, pareto, timeline, "
                                            "profile, window (these four after a quick search on "
                                            "the catalog's modelled devices) or tune (after a "
                                            "quick tune, see --tune)."),
        QStringLiteral("state"), QStringLiteral("graph")};
    QCommandLineOption db{QStringLiteral("db"),
                          QCoreApplication::translate("main",
                                                      "Sample library: an SQLite file, or a "
                                                      "PostgreSQL server as "
                                                      "postgresql://user@host:port/dbname "
                                                      "(the password from PGPASSWORD or "
                                                      "~/.pgpass). Default: the one used "
                                                      "last."),
                          QStringLiteral("library")};
    QCommandLineOption catalog{
        QStringLiteral("catalog"),
        QCoreApplication::translate("main", "Device catalog (JSON) for modelled devices."),
        QStringLiteral("file")};
    QCommandLineOption search{
        QStringLiteral("search"),
        QCoreApplication::translate("main",
                                    "After loading, search placements on the example catalog's "
                                    "modelled devices and select the fastest plan.")};
    QCommandLineOption devices{
        QStringLiteral("devices"),
        QCoreApplication::translate("main", "Catalog devices to search on, separated by commas "
                                            "(default: every device of the catalog)."),
        QStringLiteral("ids")};
    QCommandLineOption validate{
        QStringLiteral("validate"),
        QCoreApplication::translate("main", "After the search, validate the chosen plan on this "
                                            "machine's devices (a screenshot waits for it).")};
    QCommandLineOption tune{
        QStringLiteral("tune"),
        QCoreApplication::translate("main", "After loading, tune on the chosen devices (Workflow > "
                                            "Tune: search, validate, learn, round by round; a "
                                            "screenshot waits for it and uses quick settings).")};

    CommandLine() {
        parser.setApplicationDescription(QCoreApplication::translate(
            "main", "Place neural-network operators on the devices of this machine."));
        parser.addPositionalArgument(
            QStringLiteral("model"),
            QCoreApplication::translate("main", "ONNX model or .paretune workspace to open"));
        for (const QCommandLineOption* o :
             {&screenshot, &state, &db, &catalog, &search, &devices, &validate, &tune}) {
            parser.addOption(*o);
        }
    }
};

/// True when the command line asks for help or the version: the answer is text, and no window
/// (nor a display) is needed. Only these words are looked for: the rest may hold Qt's own
/// options (-platform, -style), which only a QApplication knows.
bool answersWithText(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--") {
            break;
        }
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" ||
            arg == "--version" || arg == "-?") {
            return true;
        }
    }
    return false;
}

/// Names, language (Settings > Language, else the system's) and translators, for either kind
/// of application object.
void setUpApplication(QTranslator& qtTranslator, QTranslator& appTranslator) {
    QCoreApplication::setApplicationName(QStringLiteral("Paretune Workbench"));
    QCoreApplication::setOrganizationName(QStringLiteral("Paretune"));
    QCoreApplication::setApplicationVersion(QStringLiteral(PARETUNE_VERSION));
    const QString language = paretune::MainWindow::languageSetting();
    if (!language.isEmpty()) {
        QLocale::setDefault(QLocale(language));
    }
    if (qtTranslator.load(QLocale(), QStringLiteral("qtbase"), QStringLiteral("_"),
                          QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(&qtTranslator);
    }
    if (appTranslator.load(QLocale(), QStringLiteral("paretune"), QStringLiteral("_"),
                           QStringLiteral(":/i18n"))) {
        QCoreApplication::installTranslator(&appTranslator);
    }
}

/// Prints what is wrong with the command line and the usage; the exit code for bad input.
int badCommandLine(const CommandLine& c) {
    std::fprintf(stderr, "%s: %s\n%s", qPrintable(QCoreApplication::applicationName()),
                 qPrintable(c.parser.errorText()), qPrintable(c.parser.helpText()));
    return 2;
}

/// --help or --version without a GUI (exit 0), or a broken command line (exit 2).
int answerWithText(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QTranslator qtTranslator, appTranslator;
    setUpApplication(qtTranslator, appTranslator);
    CommandLine c;
    if (!c.parser.parse(QCoreApplication::arguments())) {
        return badCommandLine(c);
    }
    if (c.parser.isSet(c.version)) {
        std::printf("%s %s\n", qPrintable(QCoreApplication::applicationName()),
                    qPrintable(QCoreApplication::applicationVersion()));
        return 0;
    }
    std::fputs(qPrintable(c.parser.helpText()), stdout);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (answersWithText(argc, argv)) {
        return answerWithText(argc, argv);
    }
    // Before Qt starts its threads: one malloc arena for all, as the measurements run with.
    paretune::keepFreedHostMemory();
    QApplication app(argc, argv);
    QTranslator qtTranslator, appTranslator;
    setUpApplication(qtTranslator, appTranslator);
    CommandLine commandLine;
    QCommandLineParser& parser = commandLine.parser;
    if (!parser.parse(QCoreApplication::arguments())) {
        return badCommandLine(commandLine);
    }
    const QCommandLineOption& screenshot = commandLine.screenshot;
    const QCommandLineOption& state = commandLine.state;
    const QCommandLineOption& db = commandLine.db;
    const QCommandLineOption& catalogOption = commandLine.catalog;
    const QCommandLineOption& search = commandLine.search;
    const QCommandLineOption& devices = commandLine.devices;
    const QCommandLineOption& validate = commandLine.validate;
    const QCommandLineOption& tune = commandLine.tune;

    const QString shotState = parser.value(state);
    if (!paretune::screenshotStates().contains(shotState)) {
        std::fprintf(stderr, "--state %s: expected one of %s\n", qPrintable(shotState),
                     qPrintable(paretune::screenshotStates().join(QStringLiteral(", "))));
        return 2;
    }
    paretune::MainWindow window;
    if (parser.isSet(db)) {
        const QString library = parser.value(db);
        if (paretune::hasPassword(library)) {
            std::fprintf(stderr, "--db: a password on the command line is refused (other users "
                                 "can read it); put it in PGPASSWORD or ~/.pgpass\n");
            return 2;
        }
        window.setDatabasePath(library);
    }
    if (parser.isSet(catalogOption)) {
        QString error;
        const QMetaObject::Connection c = QObject::connect(
            &window, &paretune::MainWindow::errorShown, [&error](const QString& m) { error = m; });
        // A name ("cpu_cores") means an installed catalog, found as the CLI finds it.
        QString path;
        try {
            path = QString::fromStdString(
                paretune::findDeviceCatalog(parser.value(catalogOption).toStdString()));
        } catch (const paretune::InputError& e) {
            std::fprintf(stderr, "%s\n", e.what());
            return 2;
        }
        const bool ok = window.setCatalogPath(path);
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
    // --tune (or a screenshot of the tune state) tunes instead: its last round's front is shown.
    const bool shot = parser.isSet(screenshot);
    const bool withTune = parser.isSet(tune) || (shot && shotState == QLatin1String("tune"));
    const bool withValidation = parser.isSet(validate) && !withTune;
    const bool withPlan = !withTune && (parser.isSet(search) || withValidation ||
                                        (shot && paretune::screenshotNeedsPlan(shotState)));
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
        if (withTune) {
            QObject::connect(&window, &paretune::MainWindow::tuneShown, &window, save);
        } else if (withValidation) {
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
    if (withTune) {
        paretune::SearchOptions options;
        paretune::TuneSettings settings;
        if (shot) {
            options.population = 80;
            options.generations = 80;
            settings.rounds = 2;
            settings.repeats = 10;
            settings.windowS = 0.0;
        }
        window.setSearchOptions(options);
        QObject::connect(&window, &paretune::MainWindow::modelShown, &window,
                         [&window, settings] { window.tune(settings); });
        // The fastest plan of the final front chosen, as after a search.
        QObject::connect(&window, &paretune::MainWindow::tuneShown, &window,
                         [&window] { window.paretoPlot()->selectPlan(0); });
    }
    // For bench_startup: PARETUNE_WORKBENCH_FIRST_PAINT=print|quit reports the window's first
    // paint on stdout (and quits after it with "quit").
    if (const QByteArray firstPaint = qgetenv("PARETUNE_WORKBENCH_FIRST_PAINT");
        !firstPaint.isEmpty()) {
        window.installEventFilter(new paretune::FirstPaintReporter(firstPaint == "quit", &window));
    }
    if (window.fillsScreen()) {
        window.showMaximized();
    } else {
        window.show();
    }
    const QStringList args = parser.positionalArguments();
    if (args.isEmpty()) {
        // Installed, the sample is a file of the package (a real path, as the CLI would take);
        // run from a build folder, the copy in the resources.
        if (const auto sample = paretune::installedSampleModel()) {
            window.openPath(QString::fromStdString(sample->string()));
        } else {
            window.openSampleModel();
        }
    } else {
        window.openPath(args.first());
    }
    return QApplication::exec();
}
