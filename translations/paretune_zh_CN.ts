<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>main</name>
    <message>
        <location filename="../app/workbench/main.cpp" line="35"/>
        <source>Place neural-network operators on the devices of this machine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="40"/>
        <source>ONNX model to open</source>
        <translation>要打开的 ONNX 模型</translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="43"/>
        <source>Save a picture of the window once the model is shown, then quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="49"/>
        <source>After loading, search placements on the example catalog&apos;s modelled devices and select the fastest plan.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::MainWindow</name>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="36"/>
        <source>Paretune Workbench</source>
        <translation>Paretune 工作台</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="46"/>
        <source>No model open. Use File &gt; Open to import an ONNX model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="50"/>
        <source>Filter nodes by name, op type, kind or shape</source>
        <translation>按名称、算子类型、类别或形状筛选节点</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="66"/>
        <source>Diagnostics</source>
        <translation>诊断信息</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="72"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="73"/>
        <source>&amp;Open model...</source>
        <translation>打开模型(&amp;O)...</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="75"/>
        <source>Open &amp;sample model</source>
        <translation>打开示例模型(&amp;S)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="77"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="80"/>
        <source>Pareto front</source>
        <translation>帕累托前沿</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="89"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="94"/>
        <source>&amp;Search</source>
        <translation>搜索(&amp;S)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="96"/>
        <source>Search &amp;placements (example catalog: cpu, gpu, npu)</source>
        <translation>搜索放置方案(&amp;P)（示例目录：cpu、gpu、npu）</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="99"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="100"/>
        <source>&amp;About Paretune</source>
        <translation>关于 Paretune(&amp;A)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="105"/>
        <source>Importing %1...</source>
        <translation>正在导入 %1...</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="114"/>
        <source>Searching placements...</source>
        <translation>正在搜索放置方案...</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="128"/>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="139"/>
        <source>Open a model before searching placements.</source>
        <translation>请先打开模型再搜索放置方案。</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="144"/>
        <source>The bundled example catalog is missing from the resources.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="163"/>
        <source>Search %1: %2 plans on the front, %3 evaluated, hypervolume %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="164"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="164"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="188"/>
        <source>Plan %1 (costs %2): latency %3 ms, energy %4 mJ, peak memory %5 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="200"/>
        <source>The bundled sample model is missing from the resources.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="203"/>
        <source>sample.onnx (bundled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="207"/>
        <source>Open ONNX model</source>
        <translation>打开 ONNX 模型</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="208"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="230"/>
        <source>&lt;b&gt;%1&lt;/b&gt; &amp;nbsp; opset %2 &amp;nbsp; fingerprint &lt;tt&gt;%3&lt;/tt&gt;&lt;br&gt;Inputs: %4&lt;br&gt;%5 nodes (%6 compute, %7 pass-through, %8 constant, %9 folded shape ops) &amp;nbsp; %10 parameters &amp;nbsp; %11FLOPs &lt;i&gt;(computed from shapes)&lt;/i&gt; &amp;nbsp; %12 unknown shapes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="251"/>
        <source>%1 - Paretune Workbench</source>
        <translation>%1 - Paretune 工作台</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="252"/>
        <source>Imported %1: %2 nodes, %3 warnings</source>
        <translation>已导入 %1：%2 个节点，%3 条警告</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="260"/>
        <source>Import failed</source>
        <translation>导入失败</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="264"/>
        <source>Cannot open model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="269"/>
        <source>About Paretune</source>
        <translation>关于 Paretune</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="270"/>
        <source>&lt;b&gt;Paretune Workbench&lt;/b&gt;&lt;br&gt;Profile, predict and place neural-network operators on the devices of this machine.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ModelLoader</name>
    <message>
        <location filename="../widgets/modelloader.cpp" line="52"/>
        <source>Internal error while importing %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::NodeTableModel</name>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="82"/>
        <source> (unknown op)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="118"/>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="120"/>
        <source>Op type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="122"/>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="124"/>
        <source>Device (selected plan)</source>
        <translation>设备（所选方案）</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="126"/>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="128"/>
        <source>FLOPs (from shapes)</source>
        <translation>FLOPs（由形状计算）</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="130"/>
        <source>Read</source>
        <translation>读取</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="132"/>
        <source>Written</source>
        <translation>写入</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="134"/>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="136"/>
        <source>Signature</source>
        <translation>签名</translation>
    </message>
</context>
<context>
    <name>paretune::ParetoPlot</name>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="50"/>
        <source>Latency (ms)</source>
        <translation>延迟（毫秒）</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="52"/>
        <source>Energy per inference (mJ)</source>
        <translation>每次推理能耗（毫焦）</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="54"/>
        <source>Average power (W)</source>
        <translation>平均功率（瓦）</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="56"/>
        <source>Peak memory (MiB)</source>
        <translation>峰值内存（MiB）</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="71"/>
        <source>No search yet: run Search &gt; Search placements.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="72"/>
        <source>X:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="74"/>
        <source>Y:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="85"/>
        <source>Pareto front</source>
        <translation>帕累托前沿</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="90"/>
        <source>Baselines</source>
        <translation>基线</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="95"/>
        <source>Selected plan</source>
        <translation>所选方案</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="140"/>
        <source>%1 plans on the front; costs %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="163"/>
        <source> (infeasible)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::PlacementSearch</name>
    <message>
        <location filename="../widgets/placementsearch.cpp" line="84"/>
        <source>Internal error in the search: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
