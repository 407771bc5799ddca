// SPDX-License-Identifier: GPL-3.0-or-later
// The graph view's colours and labels, numerically (no window): the latency scale, the precision
// colours apart from each other and readable under their labels, durations as text, which
// labels a box shows at a zoom.
#include "graphitems.h"
#include "graphpalette.h"

#include "graph/precision.h"

#include <QtTest>

#include <cmath>

using namespace paretune;

class TestGraphPalette : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void precisionColoursAreApartAndReadable();
    void heatScale_data();
    void heatScale();
    void formatMicroseconds_data();
    void formatMicroseconds();
    void labelsOnlyWhenReadable_data();
    void labelsOnlyWhenReadable();
    void ownThreadsAreMarkedApart();
    void nameLikeOpTypeIsNotRepeated();
};

void TestGraphPalette::precisionColoursAreApartAndReadable() {
    // The contrast ratio by the WCAG formula: white on black is 21.
    QCOMPARE(qRound(contrastRatio(Qt::white, Qt::black)), 21);
    QCOMPARE(contrastRatio(QColor(0x77, 0x77, 0x77), QColor(0x77, 0x77, 0x77)), 1.0);
    const Variant all[] = {Precision::Fp32,
                           Precision::Bf16,
                           Precision::Int8,
                           Precision::Fp16,
                           {Precision::Fp32, Layout::ChannelsLast}};
    for (const Variant p : all) {
        const QColor fill = variantColour(p);
        // A node's label is readable on its fill (WCAG AA for text).
        QVERIFY2(contrastRatio(fill, labelColour(fill)) >= 4.5, qPrintable(fill.name()));
        for (const Variant q : all) {
            if (p != q) {
                // Apart in lightness too, so that they differ for the colour-blind and in grey.
                QVERIFY2(contrastRatio(fill, variantColour(q)) >= 1.5,
                         qPrintable(fill.name() + QLatin1Char(' ') + variantColour(q).name()));
            }
        }
    }
}

void TestGraphPalette::ownThreadsAreMarkedApart() {
    // A variant on its own threads has its precision's fill: its mark tells it apart.
    const Variant t1{Precision::Bf16, Layout::Nchw, 1};
    QCOMPARE(variantColour(t1), variantColour(Precision::Bf16));
    QCOMPARE(variantMarkStyle(Precision::Bf16), Qt::DotLine);
    QCOMPARE(variantMarkStyle(t1), Qt::DashDotLine);
    QVERIFY(variantMarkSymbol(t1) != variantMarkSymbol(Precision::Bf16));
}

void TestGraphPalette::heatScale_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("position");
    QTest::newRow("minimum") << 10.0 << 0.0;
    QTest::newRow("maximum") << 1000.0 << 1.0;
    QTest::newRow("geometric middle") << 100.0 << 0.5;
    QTest::newRow("below") << 1.0 << 0.0;
    QTest::newRow("above") << 1e6 << 1.0;
    QTest::newRow("zero") << 0.0 << 0.0;
}

void TestGraphPalette::heatScale() {
    QFETCH(double, value);
    QFETCH(double, position);
    const HeatScale scale(10.0, 1000.0);
    QVERIFY(scale.isValid());
    QVERIFY(std::abs(scale.position(value) - position) < 1e-12);
    QCOMPARE(HeatScale::colourAt(0.0), QColor(0xffffcc));
    QCOMPARE(HeatScale::colourAt(1.0), QColor(0x800026));
    QVERIFY(!HeatScale().isValid());
    QCOMPARE(HeatScale(5.0, 5.0).position(5.0), 0.0);
}

void TestGraphPalette::formatMicroseconds_data() {
    QTest::addColumn<double>("us");
    QTest::addColumn<QString>("text");
    QTest::newRow("tiny") << 3.14159 << QStringLiteral("3.14 \u00b5s");
    QTest::newRow("micro") << 850.0 << QStringLiteral("850.0 \u00b5s");
    QTest::newRow("milli") << 12400.0 << QStringLiteral("12.4 ms");
    QTest::newRow("second") << 1.2e6 << QStringLiteral("1.20 s");
}

void TestGraphPalette::formatMicroseconds() {
    QFETCH(double, us);
    QFETCH(QString, text);
    QCOMPARE(paretune::formatMicroseconds(us), text);
}

void TestGraphPalette::labelsOnlyWhenReadable_data() {
    QTest::addColumn<qreal>("detail");
    QTest::addColumn<bool>("subtitle");
    QTest::addColumn<int>("lines");
    // A node's box is 30 scene units high; titles and names need 8 px on the screen.
    QTest::newRow("zoomed in") << 1.5 << true << int(NodeLabel::TitleAndSubtitle);
    QTest::newRow("1:1") << 1.0 << true << int(NodeLabel::TitleAndSubtitle);
    QTest::newRow("names too small") << 0.7 << true << int(NodeLabel::Title);
    QTest::newRow("a typical fit") << 0.45 << true << int(NodeLabel::Title);
    QTest::newRow("far out") << 0.3 << true << int(NodeLabel::None);
    QTest::newRow("no name, 1:1") << 1.0 << false << int(NodeLabel::Title);
    QTest::newRow("no zoom") << 0.0 << true << int(NodeLabel::None);
}

void TestGraphPalette::labelsOnlyWhenReadable() {
    QFETCH(qreal, detail);
    QFETCH(bool, subtitle);
    QFETCH(int, lines);
    const QSizeF box(120.0, 30.0);
    const NodeLabel label = nodeLabel(box, detail, subtitle);
    QCOMPARE(int(label.lines), lines);
    if (label.lines != NodeLabel::None) {
        QVERIFY(label.titlePixels * detail >= NodeLabel::kReadablePixels);
        QVERIFY(label.titlePixels <= box.height());
    }
    if (label.lines == NodeLabel::TitleAndSubtitle) {
        QVERIFY(label.subtitlePixels * detail >= NodeLabel::kReadablePixels);
        QVERIFY(label.titlePixels + label.subtitlePixels <= box.height());
    }
}

void TestGraphPalette::nameLikeOpTypeIsNotRepeated() {
    const GraphNodeItem same(0, QRectF(0, 0, 100, 30), QStringLiteral("Conv"),
                             QStringLiteral("Conv"), false);
    QVERIFY(same.subtitle().isEmpty());
    const GraphNodeItem named(0, QRectF(0, 0, 100, 30), QStringLiteral("Conv"),
                              QStringLiteral("conv1"), false);
    QCOMPARE(named.subtitle(), QStringLiteral("conv1"));
}

QTEST_MAIN(TestGraphPalette)
#include "tst_graphpalette.moc"
