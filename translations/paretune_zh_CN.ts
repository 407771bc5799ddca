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
<context>
    <name>paretune::GraphOverview</name>
    <message>
        <location filename="../widgets/graphoverview.cpp" line="10"/>
        <source>Overview: click or drag to move the view</source>
        <translation>概览：单击或拖动以移动视图</translation>
    </message>
</context>
<context>
    <name>paretune::GraphView</name>
    <message>
        <location filename="../widgets/graphview.cpp" line="56"/>
        <source>Colour by:</source>
        <translation>着色依据：</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="58"/>
        <source>Device of the selected plan</source>
        <translation>所选方案的设备</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="59"/>
        <source>Latency on the plan&apos;s devices</source>
        <translation>方案所用设备上的延迟</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="63"/>
        <source>Find node by name or op type (Ctrl+F, Enter for next)</source>
        <translation>按名称或算子类型查找节点（Ctrl+F，回车查找下一个）</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="68"/>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="69"/>
        <source>Show the whole graph (0)</source>
        <translation>显示整个计算图 (0)</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="74"/>
        <location filename="../widgets/graphview.cpp" line="149"/>
        <source>No model open.</source>
        <translation>未打开模型。</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="88"/>
        <source>Find node</source>
        <translation>查找节点</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="157"/>
        <source>Laying out the graph...</source>
        <translation>正在布局计算图...</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="181"/>
        <source>Layout failed: %1</source>
        <translation>布局失败：%1</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="202"/>
        <source>%1 nodes laid out in %2 ms</source>
        <translation>已布局 %1 个节点，用时 %2 ms</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="206"/>
        <source>; %1 items, %2 of them folded groups (double-click a group to expand it)</source>
        <translation>；共 %1 项，其中 %2 个为折叠的分组（双击分组可展开）</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="213"/>
        <source>; %1 constant nodes not drawn</source>
        <translation>；未绘制 %1 个常量节点</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="235"/>
        <source>%1FLOPs (computed from shapes)</source>
        <translation>%1FLOPs（由形状计算）</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/graphview.cpp" line="253"/>
        <source>%n ops</source>
        <translation>
            <numerusform>%n 个算子</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="262"/>
        <source>%1: %2 (%3)
Double-click to expand</source>
        <translation>%1：%2（%3）
双击展开</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="346"/>
        <source>&lt;b&gt;No plan selected&lt;/b&gt;&lt;br&gt;%1 compute &amp;nbsp; %2 no run-time cost &amp;nbsp; %3 folded group&lt;br&gt;&lt;i&gt;Search placements and pick a plan to colour by device.&lt;/i&gt;</source>
        <translation>&lt;b&gt;未选择方案&lt;/b&gt;&lt;br&gt;%1 计算 &amp;nbsp; %2 无运行时开销 &amp;nbsp; %3 折叠的分组&lt;br&gt;&lt;i&gt;搜索放置方案并选择一个方案，即可按设备着色。&lt;/i&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="370"/>
        <source>&lt;b&gt;Device in plan %1&lt;/b&gt;&lt;br&gt;%2 &amp;nbsp; %3 not placed&lt;br&gt;&lt;span style=&quot;color:#d62728&quot;&gt;- - -&lt;/span&gt; transfer between devices</source>
        <translation>&lt;b&gt;方案 %1 中的设备&lt;/b&gt;&lt;br&gt;%2 &amp;nbsp; %3 未放置&lt;br&gt;&lt;span style=&quot;color:#d62728&quot;&gt;- - -&lt;/span&gt; 设备间传输</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="410"/>
        <source>&lt;b&gt;No latency data&lt;/b&gt;&lt;br&gt;&lt;i&gt;Search placements and pick a plan: its devices&apos; costs colour the nodes.&lt;/i&gt;</source>
        <translation>&lt;b&gt;无延迟数据&lt;/b&gt;&lt;br&gt;&lt;i&gt;搜索放置方案并选择一个方案：用其设备上的开销为节点着色。&lt;/i&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="422"/>
        <source>&lt;b&gt;Latency on the device of plan %1&lt;/b&gt; (%2, log scale)&lt;br&gt;%3 %4 &amp;nbsp; %5 &amp;nbsp; %6 no cost</source>
        <translation>&lt;b&gt;方案 %1 所用设备上的延迟&lt;/b&gt;（%2，对数刻度）&lt;br&gt;%3 %4 &amp;nbsp; %5 &amp;nbsp; %6 无开销</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="447"/>
        <source>transfer %1 → %2: %3, %4 (modelled link)</source>
        <translation>传输 %1 → %2：%3，%4（链路为建模值）</translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/graphview.cpp" line="459"/>
        <source>and %n more tensors</source>
        <translation>
            <numerusform>以及另外 %n 个张量</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="501"/>
        <source>Plan %1: %2</source>
        <translation>方案 %1：%2</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="503"/>
        <source>not placed</source>
        <translation>未放置</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="505"/>
        <source>, %1 (%2)</source>
        <translation>，%1（%2）</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="647"/>
        <source>Found %1 (%2)</source>
        <translation>已找到 %1（%2）</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="652"/>
        <source>No drawn node matches &quot;%1&quot;</source>
        <translation>没有已绘制的节点匹配“%1”</translation>
    </message>
</context>
<context>
    <name>paretune::NodeProperties</name>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="34"/>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="36"/>
        <source>graph input</source>
        <translation>图输入</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="38"/>
        <source>graph output</source>
        <translation>图输出</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="86"/>
        <source>&lt;i&gt;Select a node in the graph or the per-layer profile to see its properties.&lt;/i&gt;</source>
        <translation>&lt;i&gt;在计算图或逐层性能分析中选择一个节点以查看其属性。&lt;/i&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="102"/>
        <source>Op type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="104"/>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="105"/>
        <source> (unknown operator)</source>
        <translation>（未知算子）</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="112"/>
        <source>attribute %1</source>
        <translation>属性 %1</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="116"/>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="118"/>
        <source>Outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="120"/>
        <source>Work (computed from shapes)</source>
        <translation>计算量（由形状计算）</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="121"/>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="122"/>
        <source>Bytes read</source>
        <translation>读取字节数</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="123"/>
        <source>Bytes written</source>
        <translation>写入字节数</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="124"/>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="125"/>
        <source>Cost per device</source>
        <translation>各设备上的开销</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="127"/>
        <source>&lt;i&gt;No costs available: no search has run on this model. Search placements to see this node&apos;s modelled, predicted or measured cost on each device.&lt;/i&gt;</source>
        <translation>&lt;i&gt;无可用开销：尚未对此模型运行搜索。搜索放置方案后，可查看此节点在各设备上的建模、预测或实测开销。&lt;/i&gt;</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="132"/>
        <source>From the current search&apos;s cost table (%1).</source>
        <translation>来自当前搜索的开销表（%1）。</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Energy</source>
        <translation>能耗</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Workspace</source>
        <translation>工作空间</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="141"/>
        <source> (plan)</source>
        <translation>（方案）</translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="146"/>
        <source>not supported on this device</source>
        <translation>此设备不支持</translation>
    </message>
    <message>
        <location filename="../widgets/graphdock.cpp" line="16"/>
        <source>Node properties</source>
        <translation>节点属性</translation>
    </message>
</context>
<context>
    <name>paretune::MainWindow</name>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="66"/>
        <source>Per-layer profile</source>
        <translation>逐层性能分析</translation>
    </message>
</context>
</TS>
