// SPDX-License-Identifier: GPL-3.0-or-later
// The zh_CN translation is complete: every current message of translations/paretune_zh_CN.ts is
// translated, and each translation keeps the source's placeholders (%1, %n, ...).
#include "testpaths.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QXmlStreamReader>
#include <QtTest>

class TestTranslations : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void zhCnIsComplete();
};

namespace {

QSet<QString> placeholders(const QString& text) {
    static const QRegularExpression pattern(QStringLiteral("%(\\d+|n)"));
    QSet<QString> found;
    for (auto it = pattern.globalMatch(text); it.hasNext();) {
        found.insert(it.next().captured(0));
    }
    return found;
}

} // namespace

void TestTranslations::zhCnIsComplete() {
    QFile file(QStringLiteral(PARETUNE_SOURCE_DIR "/translations/paretune_zh_CN.ts"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    QString source;
    QString translation;
    QString type;
    int checked = 0;
    QStringList problems;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
        } else if (xml.isStartElement() && xml.name() == QLatin1String("translation")) {
            type = xml.attributes().value(QLatin1String("type")).toString();
            translation = xml.readElementText(QXmlStreamReader::IncludeChildElements);
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            if (type == QLatin1String("vanished") || type == QLatin1String("obsolete")) {
                continue;
            }
            ++checked;
            if (type == QLatin1String("unfinished") || translation.trimmed().isEmpty()) {
                problems << QStringLiteral("untranslated: ") + source;
            } else if (placeholders(source) != placeholders(translation)) {
                problems << QStringLiteral("placeholders differ: ") + source;
            }
        }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(checked > 100);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
