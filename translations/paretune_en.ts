<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>main</name>
    <message>
        <location filename="../app/workbench/main.cpp" line="42"/>
        <source>Place neural-network operators on the devices of this machine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="48"/>
        <source>ONNX model or .paretune workspace to open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="51"/>
        <source>Save a picture of the window once the model is shown, then quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="57"/>
        <source>What --screenshot shows: graph, pareto, timeline or profile (the last three after a quick search on the catalog&apos;s modelled devices).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="63"/>
        <source>Sample library (SQLite file).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="68"/>
        <source>Device catalog (JSON) for modelled devices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="73"/>
        <source>After loading, search placements on the example catalog&apos;s modelled devices and select the fastest plan.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::DeviceListModel</name>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="45"/>
        <source>Discovered on this machine: can be profiled (CPU devices in this version); its samples are measured.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="47"/>
        <source>From the device catalog: its costs are modelled from the catalog&apos;s figures, never measured.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="57"/>
        <source>real</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="57"/>
        <source>modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/devicelistmodel.cpp" line="64"/>
        <source>%n core(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/devicelistmodel.cpp" line="67"/>
        <source>%n SM(s), %1 MHz</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="69"/>
        <source>%1 GFLOP/s, %2 GB/s (catalog)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="84"/>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="86"/>
        <source>Real / modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="88"/>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="90"/>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="92"/>
        <source>Compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="94"/>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::MainWindow</name>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="41"/>
        <source>Paretune Workbench</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="51"/>
        <source>No model open. Use File &gt; Open to import an ONNX model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="55"/>
        <source>Filter nodes by name, op type, kind or shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="71"/>
        <source>Diagnostics</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="77"/>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="79"/>
        <source>&amp;Open model...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="81"/>
        <source>Open &amp;sample model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="83"/>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="86"/>
        <source>Pareto front</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="95"/>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="100"/>
        <source>&amp;Search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="105"/>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="106"/>
        <source>&amp;About Paretune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="111"/>
        <source>Importing %1...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="124"/>
        <source>Searching placements...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="146"/>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="158"/>
        <source>Open a model before searching placements.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="51"/>
        <source>Timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="74"/>
        <source>Discovering devices...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="76"/>
        <source>Discover again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="81"/>
        <source>The catalog devices the placement search uses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="83"/>
        <source>Search places operators on:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="87"/>
        <source>Devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="141"/>
        <source>The bundled example catalog is missing from the resources.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="142"/>
        <source>Cannot read the device catalog %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="212"/>
        <source>Device catalog: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="221"/>
        <source>Log / Issues</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="224"/>
        <source>Importing %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="226"/>
        <source>Placement search started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="229"/>
        <source>Placement search %1 after %2 generations: %3 plans on the front (costs %4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="245"/>
        <source>Predictor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="269"/>
        <source>Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="272"/>
        <source>&amp;Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="282"/>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="282"/>
        <source>Open an ONNX model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="284"/>
        <location filename="../widgets/mainwindow_docks.cpp" line="361"/>
        <source>Profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="285"/>
        <source>Profile the model&apos;s operators on a real device of this machine into the sample library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="290"/>
        <source>Profiling needs LibTorch, which this build does not include</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="294"/>
        <source>Train</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="295"/>
        <source>Train the predictor: not available yet (the predictor part of the engine is not in this build)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="301"/>
        <source>Validate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="302"/>
        <source>Validate the chosen plan on the hardware: not available yet (the validation part of the engine is not in this build)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="306"/>
        <source>Export bundle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="307"/>
        <source>Export a deployment bundle: not available yet (the bundle part of the engine is not in this build)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="317"/>
        <source>Profiling...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="330"/>
        <source>Profiling on %1 %2: %3 operators measured, %4 reused, %5 failed, %6 not run; sum of measured medians %7 (measured), end to end %8; stored in %9</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="338"/>
        <source>not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="356"/>
        <source>No real device to profile on was discovered.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="361"/>
        <source>Profile the model&apos;s operators on:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="369"/>
        <source>Open a model before profiling.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="374"/>
        <source>No device &apos;%1&apos; (see the Devices dock).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="378"/>
        <source>%1 is a modelled device: only real devices are profiled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_docks.cpp" line="381"/>
        <source>Profiling %1 on %2 into %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="102"/>
        <source>Search &amp;placements on the catalog&apos;s modelled devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="198"/>
        <source>Search %1: %2 plans on the front, %3 evaluated, hypervolume %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="199"/>
        <location filename="../widgets/mainwindow_docks.cpp" line="231"/>
        <location filename="../widgets/mainwindow_docks.cpp" line="332"/>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="199"/>
        <location filename="../widgets/mainwindow_docks.cpp" line="231"/>
        <location filename="../widgets/mainwindow_docks.cpp" line="332"/>
        <source>finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="216"/>
        <source>simulated; costs %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="219"/>
        <source>Plan %1 (costs %2): latency %3 ms, energy %4 mJ, peak memory %5 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="251"/>
        <source>The bundled sample model is missing from the resources.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="255"/>
        <source>sample.onnx (bundled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="259"/>
        <source>Open ONNX model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="260"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="285"/>
        <source>&lt;b&gt;%1&lt;/b&gt; &amp;nbsp; opset %2 &amp;nbsp; fingerprint &lt;tt&gt;%3&lt;/tt&gt;&lt;br&gt;Inputs: %4&lt;br&gt;%5 nodes (%6 compute, %7 pass-through, %8 constant, %9 folded shape ops) &amp;nbsp; %10 parameters &amp;nbsp; %11FLOPs &lt;i&gt;(computed from shapes)&lt;/i&gt; &amp;nbsp; %12 unknown shapes</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/mainwindow.cpp" line="301"/>
        <source>Imported %1: %n warning(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="307"/>
        <source>%1 - Paretune Workbench</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="308"/>
        <source>Imported %1: %2 nodes, %3 warnings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="316"/>
        <source>Import failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="320"/>
        <source>Cannot open model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="325"/>
        <source>About Paretune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="326"/>
        <source>&lt;b&gt;Paretune Workbench&lt;/b&gt;&lt;br&gt;Profile, predict and place neural-network operators on the devices of this machine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="54"/>
        <source>Open &amp;workspace...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="56"/>
        <source>Save workspace &amp;as...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="59"/>
        <source>Open &amp;recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="67"/>
        <source>S&amp;ettings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="68"/>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="72"/>
        <source>System default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="73"/>
        <source>English</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="82"/>
        <source>The language changes when the workbench restarts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="142"/>
        <source>(none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="145"/>
        <source>Clear the list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="181"/>
        <source>Workspace %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="193"/>
        <source>Open a model before saving a workspace.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="210"/>
        <source>Saved workspace %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="215"/>
        <source>Open workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="216"/>
        <location filename="../widgets/mainwindow_persistence.cpp" line="224"/>
        <source>Paretune workspaces (*.paretune)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow_persistence.cpp" line="223"/>
        <source>Save workspace</source>
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
        <location filename="../widgets/nodetablemodel.cpp" line="20"/>
        <location filename="../widgets/nodetablemodel.cpp" line="96"/>
        <location filename="../widgets/nodetablemodel.cpp" line="100"/>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="22"/>
        <source>predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="24"/>
        <source>modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="28"/>
        <location filename="../widgets/nodetablemodel.cpp" line="174"/>
        <source>unsupported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="165"/>
        <source>%1 on %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="169"/>
        <source> (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="186"/>
        <source>%1 µJ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="190"/>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="96"/>
        <location filename="../widgets/nodetablemodel.cpp" line="200"/>
        <source>%1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="104"/>
        <source>Median latency measured on %1 (sample library)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="296"/>
        <source> (unknown op)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="335"/>
        <source>Measured on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="338"/>
        <source>Latency on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="344"/>
        <source>Node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="346"/>
        <source>Op type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="348"/>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="350"/>
        <source>Device (selected plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="352"/>
        <source>Output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="354"/>
        <source>FLOPs (from shapes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="356"/>
        <source>Read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="358"/>
        <source>Written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="360"/>
        <source>Weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="362"/>
        <source>Signature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="364"/>
        <source>Latency (plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="366"/>
        <source>Memory (plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="368"/>
        <source>Energy (plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="370"/>
        <source>Share of device time</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ParetoPlot</name>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="30"/>
        <source>ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="32"/>
        <source>mJ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="34"/>
        <source>W</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="36"/>
        <source>MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="44"/>
        <source>latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="46"/>
        <source>energy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="48"/>
        <source>average power</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="50"/>
        <source>peak memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="87"/>
        <source>Latency (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="89"/>
        <source>Energy per inference (mJ)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="91"/>
        <source>Average power (W)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="93"/>
        <source>Peak memory (MiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="109"/>
        <source>No search yet: run Search &gt; Search placements.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="111"/>
        <source>X:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="113"/>
        <source>Y:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="142"/>
        <source>Pareto front</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="146"/>
        <source>Baselines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="149"/>
        <source>Dominated baselines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="153"/>
        <source>Selected plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="157"/>
        <source>Compared plan (Ctrl+click)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="173"/>
        <source>Generation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="174"/>
        <source>Hypervolume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="233"/>
        <source>Colour: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="256"/>
        <source>%1 plans on the front; costs %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="289"/>
        <source> (infeasible)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="362"/>
        <source>infeasible (violation %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="365"/>
        <source>simulated; costs %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="377"/>
        <source>Baseline %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="382"/>
        <source>Plan %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="383"/>
        <source>Plan %1 (baseline %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="456"/>
        <source>&lt;b&gt;Plan %1 vs plan %2&lt;/b&gt; (simulated; costs %3):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="464"/>
        <source>%1 %2%3 %4 (%5%6 %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/paretoplot.cpp" line="477"/>
        <source>%n node(s) on different devices</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="491"/>
        <source>, and %1 more</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::PlacementSearch</name>
    <message>
        <location filename="../widgets/placementsearch.cpp" line="65"/>
        <source>Internal error in the search: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::PredictorPanel</name>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="24"/>
        <source>No sample library opened yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="32"/>
        <source>training loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="35"/>
        <source>validation loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="37"/>
        <source>Epoch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="38"/>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="47"/>
        <source>Measured latency (µs, held-out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="48"/>
        <source>Predicted latency (µs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="56"/>
        <source>Metric</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="56"/>
        <source>Predictor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="56"/>
        <source>Roofline baseline (modelled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="73"/>
        <source>No sample library at %1 yet: profile a model on a real device to create it. No predictor is trained; costs are modelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="99"/>
        <source>predictor #%1 trained %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="121"/>
        <source>Cannot read the predictors of %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="123"/>
        <source>No predictor is trained in %1 yet: costs come from measured samples and the catalog (modelled). Train one once samples are profiled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../widgets/predictorpanel.cpp" line="128"/>
        <source>%n predictor(s) in %1; the latest: %2 (metrics as stored).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="137"/>
        <source>Training...</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ProfileJob</name>
    <message>
        <location filename="../widgets/profilejob.cpp" line="85"/>
        <source>Internal error while profiling: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/profilejob.cpp" line="91"/>
        <source>Profiling needs LibTorch, which this build does not include.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::TimelineView</name>
    <message>
        <location filename="../widgets/timelineview.cpp" line="23"/>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/timelineview.cpp" line="26"/>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/timelineview.cpp" line="28"/>
        <source>%1 µs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/timelineview.cpp" line="65"/>
        <source>transfer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/timelineview.cpp" line="156"/>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2) on %3&lt;br&gt;start %4, end %5, duration %6&lt;br&gt;&lt;i&gt;%7&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/timelineview.cpp" line="169"/>
        <source>No plan selected: search placements and pick a plan on the Pareto front.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
