<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
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
        <translation type="unfinished"></translation>
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
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="46"/>
        <source>No model open. Use File &gt; Open to import an ONNX model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="50"/>
        <source>Filter nodes by name, op type, kind or shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="66"/>
        <source>Diagnostics</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="72"/>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="73"/>
        <source>&amp;Open model...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="75"/>
        <source>Open &amp;sample model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="77"/>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="80"/>
        <source>Pareto front</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="89"/>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="94"/>
        <source>&amp;Search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="96"/>
        <source>Search &amp;placements (example catalog: cpu, gpu, npu)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="99"/>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="100"/>
        <source>&amp;About Paretune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="105"/>
        <source>Importing %1...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="114"/>
        <source>Searching placements...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="128"/>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="139"/>
        <source>Open a model before searching placements.</source>
        <translation type="unfinished"></translation>
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
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="164"/>
        <source>finished</source>
        <translation type="unfinished"></translation>
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
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="208"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="230"/>
        <source>&lt;b&gt;%1&lt;/b&gt; &amp;nbsp; opset %2 &amp;nbsp; fingerprint &lt;tt&gt;%3&lt;/tt&gt;&lt;br&gt;Inputs: %4&lt;br&gt;%5 nodes (%6 compute, %7 pass-through, %8 constant, %9 folded shape ops) &amp;nbsp; %10 parameters &amp;nbsp; %11FLOPs &lt;i&gt;(computed from shapes)&lt;/i&gt; &amp;nbsp; %12 unknown shapes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="251"/>
        <source>%1 - Paretune Workbench</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="252"/>
        <source>Imported %1: %2 nodes, %3 warnings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="260"/>
        <source>Import failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="264"/>
        <source>Cannot open model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="269"/>
        <source>About Paretune</source>
        <translation type="unfinished"></translation>
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
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="120"/>
        <source>Op type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="122"/>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="124"/>
        <source>Device (selected plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="126"/>
        <source>Output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="128"/>
        <source>FLOPs (from shapes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="130"/>
        <source>Read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="132"/>
        <source>Written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="134"/>
        <source>Weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="136"/>
        <source>Signature</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ParetoPlot</name>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="50"/>
        <source>Latency (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="52"/>
        <source>Energy per inference (mJ)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="54"/>
        <source>Average power (W)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="56"/>
        <source>Peak memory (MiB)</source>
        <translation type="unfinished"></translation>
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
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="90"/>
        <source>Baselines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="95"/>
        <source>Selected plan</source>
        <translation type="unfinished"></translation>
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
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::GraphView</name>
    <message>
        <location filename="../widgets/graphview.cpp" line="56"/>
        <source>Colour by:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="58"/>
        <source>Device of the selected plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="59"/>
        <source>Latency on the plan&apos;s devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="63"/>
        <source>Find node by name or op type (Ctrl+F, Enter for next)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="68"/>
        <source>Fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="69"/>
        <source>Show the whole graph (0)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="74"/>
        <location filename="../widgets/graphview.cpp" line="149"/>
        <source>No model open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="88"/>
        <source>Find node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="157"/>
        <source>Laying out the graph...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="181"/>
        <source>Layout failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="202"/>
        <source>%1 nodes laid out in %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="206"/>
        <source>; %1 items, %2 of them folded groups (double-click a group to expand it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="213"/>
        <source>; %1 constant nodes not drawn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="235"/>
        <source>%1FLOPs (computed from shapes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/graphview.cpp" line="253"/>
        <source>%n ops</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="262"/>
        <source>%1: %2 (%3)
Double-click to expand</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="346"/>
        <source>&lt;b&gt;No plan selected&lt;/b&gt;&lt;br&gt;%1 compute &amp;nbsp; %2 no run-time cost &amp;nbsp; %3 folded group&lt;br&gt;&lt;i&gt;Search placements and pick a plan to colour by device.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="370"/>
        <source>&lt;b&gt;Device in plan %1&lt;/b&gt;&lt;br&gt;%2 &amp;nbsp; %3 not placed&lt;br&gt;&lt;span style=&quot;color:#d62728&quot;&gt;- - -&lt;/span&gt; transfer between devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="410"/>
        <source>&lt;b&gt;No latency data&lt;/b&gt;&lt;br&gt;&lt;i&gt;Search placements and pick a plan: its devices&apos; costs colour the nodes.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="422"/>
        <source>&lt;b&gt;Latency on the device of plan %1&lt;/b&gt; (%2, log scale)&lt;br&gt;%3 %4 &amp;nbsp; %5 &amp;nbsp; %6 no cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="447"/>
        <source>transfer %1 → %2: %3, %4 (modelled link)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/graphview.cpp" line="459"/>
        <source>and %n more tensors</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="501"/>
        <source>Plan %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="503"/>
        <source>not placed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="505"/>
        <source>, %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="647"/>
        <source>Found %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="652"/>
        <source>No drawn node matches &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::NodeProperties</name>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="34"/>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="36"/>
        <source>graph input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="38"/>
        <source>graph output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="86"/>
        <source>&lt;i&gt;Select a node in the graph or the per-layer profile to see its properties.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="102"/>
        <source>Op type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="104"/>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="105"/>
        <source> (unknown operator)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="112"/>
        <source>attribute %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="116"/>
        <source>Inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="118"/>
        <source>Outputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="120"/>
        <source>Work (computed from shapes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="121"/>
        <source>FLOPs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="122"/>
        <source>Bytes read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="123"/>
        <source>Bytes written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="124"/>
        <source>Weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="125"/>
        <source>Cost per device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="127"/>
        <source>&lt;i&gt;No costs available: no search has run on this model. Search placements to see this node&apos;s modelled, predicted or measured cost on each device.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="132"/>
        <source>From the current search&apos;s cost table (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Energy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="135"/>
        <source>Source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="141"/>
        <source> (plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="146"/>
        <source>not supported on this device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphdock.cpp" line="16"/>
        <source>Node properties</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::MainWindow</name>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="66"/>
        <source>Per-layer profile</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
