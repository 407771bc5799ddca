<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>main</name>
    <message>
        <location filename="../app/workbench/main.cpp" line="+113"/>
        <source>Place neural-network operators on the devices of this machine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>ONNX model or .paretune workspace to open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-48"/>
        <source>Save a picture of the window once the model is shown, then quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>What --screenshot shows: graph, pareto, timeline, profile, window (these four after a quick search on the catalog&apos;s modelled devices) or tune (after a quick tune, see --tune).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Sample library: an SQLite file, or a PostgreSQL server as postgresql://user@host:port/dbname (the password from PGPASSWORD or ~/.pgpass). Default: the one used last.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Device catalog (JSON) for modelled devices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>After loading, search placements on the example catalog&apos;s modelled devices and select the fastest plan.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Catalog devices to search on, separated by commas (default: every device of the catalog).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>After the search, validate the chosen plan on this machine&apos;s devices (a screenshot waits for it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>After loading, tune on the chosen devices (Workflow &gt; Tune: search, validate, learn, round by round; a screenshot waits for it and uses quick settings).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::AdaptJob</name>
    <message>
        <location filename="../widgets/adaptjob.cpp" line="+20"/>
        <source>adapting the predictor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+14"/>
        <source>%1 (%2): predicted %3 µs, measured %4 µs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Adapting the predictor needs LibTorch, which this build does not include.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::BundleExportJob</name>
    <message>
        <location filename="../widgets/planjobs.cpp" line="+176"/>
        <source>exporting the bundle</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::DeviceController</name>
    <message>
        <location filename="../widgets/devicecontroller.cpp" line="+33"/>
        <source>Discovering devices...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Discover again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The catalog devices the placement search uses</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Search places operators on:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+55"/>
        <source>The bundled example catalog is missing from the resources.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cannot read the device catalog %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+16"/>
        <source>No CUDA devices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No CUDA devices (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1: the catalog&apos;s %2 &apos;%3&apos; has the id of this machine&apos;s %4; the real device is listed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+36"/>
        <source>discovering devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Device catalog: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::DeviceListModel</name>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="+15"/>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>NPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>DSP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+43"/>
        <source>Discovered on this machine: can be profiled (CPU devices in this version); its samples are measured.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>From the device catalog: its costs are modelled from the catalog&apos;s figures, never measured.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>real</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+7"/>
        <source>%n core(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%n SM(s), %1 MHz</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 GFLOP/s, %2 GB/s (catalog)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Real / modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::DocumentController</name>
    <message>
        <location filename="../widgets/documentcontroller.cpp" line="+35"/>
        <source>No model open. Use File &gt; Open to import an ONNX model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Filter nodes by name, op type, kind or shape</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Show constants</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>List the constant nodes too (they have no run-time cost)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Importing %1...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Importing %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+18"/>
        <source>The bundled sample model is missing from the resources.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>sample.onnx (bundled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open ONNX model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+45"/>
        <source>&lt;b&gt;%1&lt;/b&gt; &amp;nbsp; opset %2 &amp;nbsp; fingerprint &lt;tt&gt;%3&lt;/tt&gt;&lt;br&gt;Inputs: %4&lt;br&gt;%5 nodes (%6 compute, %7 pass-through, %8 constant, %9 folded shape ops) &amp;nbsp; %10 parameters &amp;nbsp; %11FLOPs &lt;i&gt;(computed from shapes)&lt;/i&gt; &amp;nbsp; %12 unknown shapes</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+16"/>
        <source>Imported %1: %n warning(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Show constants (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 - Paretune Workbench</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Imported %1: %2 nodes, %3 warnings</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::GraphOverview</name>
    <message>
        <location filename="../widgets/graphoverview.cpp" line="+11"/>
        <source>Overview: click or drag to move the view</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::GraphView</name>
    <message>
        <location filename="../widgets/graphview.cpp" line="+47"/>
        <source>Colour by:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Device of the selected plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Latency on the plan&apos;s devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Precision of the selected plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Find node by name or op type (Ctrl+F, Enter for next)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show the whole graph (0)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+97"/>
        <source>No model open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-77"/>
        <source>Find node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+18"/>
        <source>&amp;Colour graph by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+66"/>
        <source>Laying out the graph...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>laying out the graph</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Layout failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+23"/>
        <source>%1 nodes laid out in %2 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>; %1 items, %2 of them folded groups (double-click a group to expand it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>; %1 constant nodes not drawn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+22"/>
        <source>%1FLOPs (computed from shapes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+19"/>
        <source>%n ops</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1: %2 (%3)
Double-click to expand</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview_plan.cpp" line="+99"/>
        <source>Fusion group %1: runs as one node</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+43"/>
        <source>%1 runs in fp32 on %n of its device&apos;s threads</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 runs in %2 (its inputs converted, its output back to fp32)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+37"/>
        <source>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;&amp;#9633;&lt;/span&gt; fusion group, run as one node (%2 in this plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;&amp;#8943;&lt;/span&gt; node in another variant (%2 in this plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;%2&lt;/span&gt; of them on their own threads (%3), coloured by their precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+25"/>
        <source>&lt;b&gt;No plan selected&lt;/b&gt;&lt;br&gt;%1 compute &amp;nbsp; %2 no run-time cost &amp;nbsp; %3 folded group&lt;br&gt;&lt;i&gt;Search placements and pick a plan to colour by device.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+24"/>
        <source>&lt;b&gt;Device in plan %1&lt;/b&gt;&lt;br&gt;%2 &amp;nbsp; %3 not placed&lt;br&gt;&lt;span style=&quot;color:#d62728&quot;&gt;- - -&lt;/span&gt; transfer between devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+40"/>
        <source>&lt;b&gt;No latency data&lt;/b&gt;&lt;br&gt;&lt;i&gt;Search placements and pick a plan: its devices&apos; costs colour the nodes.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <source>&lt;b&gt;Latency on the device of plan %1&lt;/b&gt; (%2, log scale)&lt;br&gt;%3 %4 &amp;nbsp; %5 &amp;nbsp; %6 no cost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+35"/>
        <source>%1 %2 (%3 compute nodes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&lt;b&gt;No plan selected&lt;/b&gt;&lt;br&gt;%1&lt;br&gt;&lt;i&gt;Search placements with other variants offered and pick a plan to colour by variant.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&lt;b&gt;Variant in plan %1&lt;/b&gt;&lt;br&gt;%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&lt;br&gt;&lt;i&gt;This search offered fp32 only (Search &amp;gt; Offer other variants).&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+52"/>
        <source>%1 (kept in %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>transfer %1 → %2: %3, %4 (modelled link)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+12"/>
        <source>and %n more tensors</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+39"/>
        <source>%1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Plan %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not placed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>, %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="+159"/>
        <source>Found %1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No drawn node matches &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::JobRunner</name>
    <message>
        <location filename="../widgets/jobrunner.cpp" line="+102"/>
        <location line="+2"/>
        <source>Internal error while %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>an unknown exception</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::JobStatusWidget</name>
    <message>
        <location filename="../widgets/jobstatuswidget.cpp" line="+13"/>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::LibraryDialog</name>
    <message>
        <location filename="../widgets/librarydialog.cpp" line="+30"/>
        <source>Sample Library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>A file on this machine (SQLite)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Browse...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>A team&apos;s PostgreSQL server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>default (5432)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>your login name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>from ~/.pgpass when empty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Host:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Port:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Database:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>User:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Password:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The password is used for this session only: it is never saved, shown or written to the log. To connect without typing it, put it in ~/.pgpass.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+47"/>
        <source>Sample library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sample libraries (*.db);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Name the library&apos;s file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>That is a server&apos;s address: choose &quot;A team&apos;s PostgreSQL server&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Name the database on the server.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::MainWindow</name>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="+39"/>
        <source>Paretune Workbench</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Per-layer profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+26"/>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Open model...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open &amp;sample model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-33"/>
        <source>Pareto front</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+37"/>
        <source>&amp;Search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+15"/>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About Paretune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-41"/>
        <source>Tune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+50"/>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-56"/>
        <source>Timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Log / Issues</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Predictor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+16"/>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+42"/>
        <source>Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Workflow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open an ONNX model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+13"/>
        <source>About Paretune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&lt;b&gt;Paretune Workbench&lt;/b&gt;&lt;br&gt;Profile, predict and place neural-network operators on the devices of this machine.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::MeasuredPoint</name>
    <message>
        <location filename="../widgets/measuredpoints.cpp" line="+54"/>
        <source>latency %1 ms (p10 %2, p90 %3, %4 runs), predicted %5 ms, error %6%7 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <source>energy %1 mJ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>peak memory %1 MiB, predicted %2 MiB</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::MemoryView</name>
    <message>
        <location filename="../widgets/memoryview.cpp" line="+58"/>
        <source>workspace of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+109"/>
        <source>%1 (%2): %3 at offset %4, steps %5 to %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>, written in place of its input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1: arena %2 (naive %3, live peak %4), weights %5, largest workspace %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>, %n written in place</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+11"/>
        <source>No plan selected: pick a plan on the Pareto front to see its memory plan.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ModelLoader</name>
    <message>
        <location filename="../widgets/modelloader.cpp" line="+16"/>
        <source>importing %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::NodeProperties</name>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="+33"/>
        <source>weight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>graph input</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>graph output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+50"/>
        <source>&lt;i&gt;Select a node in the graph or the per-layer profile to see its properties.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Op type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (unknown operator)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>attribute %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Inputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Outputs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Work (computed from shapes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>FLOPs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bytes read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bytes written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cost per device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&lt;i&gt;No costs available: no search has run on this model. Search placements to see this node&apos;s modelled, predicted or measured cost on each device.&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>From the current search&apos;s cost table (%1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+58"/>
        <location line="+31"/>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-89"/>
        <location line="+58"/>
        <source>Latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-58"/>
        <source>Energy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+59"/>
        <location line="+30"/>
        <source>Source</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-83"/>
        <location line="+35"/>
        <source> (plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-30"/>
        <source>not supported on this device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+33"/>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Precision variants</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The node in another variant, its conversions included; the deviation is how much running it so moves the model&apos;s outputs from fp32 (relative L2 error, measured one node at a time on random inputs: accuracy on real data may differ).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Precision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Output deviation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Fusion group</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1: %2 run as one node%3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source> (the plan takes it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (the plan does not take it)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>As one node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Members apart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <location line="+1"/>
        <source>not supported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/graphdock.cpp" line="+17"/>
        <source>Node properties</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::NodeTableModel</name>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="+93"/>
        <location line="+4"/>
        <location line="+146"/>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>modelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-70"/>
        <location line="+74"/>
        <source>unsupported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-83"/>
        <source>%1 on %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source> (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1 µJ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-100"/>
        <location line="+50"/>
        <location line="+60"/>
        <source>%1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-145"/>
        <source>Median latency measured on %1 (sample library)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+274"/>
        <source> (unknown op)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-275"/>
        <source>Measured on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+200"/>
        <location line="+8"/>
        <source>compute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-6"/>
        <source>constant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>pass-through</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>shape computation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+111"/>
        <source>Latency on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Node</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Op type</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Device (selected plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>FLOPs (from shapes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Signature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Latency (plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Memory (plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Energy (plan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Share of device time</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ParetoPlot</name>
    <message>
        <location filename="../widgets/objectivetexts.cpp" line="+22"/>
        <source>ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>mJ</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>W</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>accuracy loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accuracy loss (estimated deviation, %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-14"/>
        <source>latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>energy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>average power</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>peak memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Latency (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Energy per inference (mJ)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Average power (W)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Peak memory (MiB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="+61"/>
        <source>X:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Y:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Pareto front</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Baselines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Dominated baselines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Selected plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Compared plan (Ctrl+click)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>measured (p10–p90)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+19"/>
        <source>No plans yet.
Open a model and run Search &gt; Search placements: the Pareto front of its placements appears here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Generation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hypervolume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+73"/>
        <source>Colour: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+27"/>
        <source>%1 plans on the front; costs %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+4"/>
        <source>%n plan(s) measured on this machine: choose latency on an axis to see them</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%n plan(s) measured on this machine, at their median latency (p10–p90 bars), joined to their simulated points</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+38"/>
        <source> (infeasible)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+156"/>
        <source>infeasible (violation %1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>simulated; costs %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>measured: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+19"/>
        <source>%1, measured on this machine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Baseline %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Plan %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Plan %1 (baseline %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot_compare.cpp" line="+41"/>
        <source>&lt;b&gt;Plan %1 vs plan %2&lt;/b&gt; (simulated; costs %3):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 %2%3 %4 (%5%6 %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+13"/>
        <source>%n node(s) on different devices</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+14"/>
        <source>, and %1 more</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::PlacementSearch</name>
    <message>
        <location filename="../widgets/placementsearch.cpp" line="+71"/>
        <source>searching placements</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-46"/>
        <source>modelled from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>measured (%1 cells) and predicted (%2 cells) from %3, else modelled from %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+15"/>
        <source>; scaled by the model&apos;s measured whole-model runs (%1)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::PlanClaim</name>
    <message>
        <location filename="../widgets/measuredpoints.cpp" line="-50"/>
        <source>confirmed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>contradicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unmeasured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>energy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>power</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>dominates %1, better in %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>better than %1 in %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Claim contradicted: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Claim: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::PredictorPanel</name>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="+27"/>
        <source>No sample library opened yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>training loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>validation loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Epoch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Measured latency (µs, held-out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Predicted latency (µs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Metric</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Predictor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Roofline baseline (modelled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+20"/>
        <source>No sample library at %1 yet: profile a model on a real device to create it. No predictor is trained; costs are modelled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Reading the predictors of %1 ...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>reading the predictors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+40"/>
        <source>predictor #%1 trained %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-24"/>
        <source>Cannot read the predictors of %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No predictor is trained in %1 yet: costs come from measured samples and the catalog (modelled). Train one once samples are profiled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+23"/>
        <source>%n predictor(s) in %1; the latest: %2 (metrics as stored).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Training...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/accuracyrows.cpp" line="+17"/>
        <source>MAPE %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Share within ±10%</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Spearman</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>End-to-end error %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1, %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+25"/>
        <source>%1 (%2 ops)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ProfileJob</name>
    <message>
        <location filename="../widgets/profilejob.cpp" line="+28"/>
        <source>profiling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Profiling needs LibTorch, which this build does not include.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ProfilingController</name>
    <message>
        <location filename="../widgets/profilingcontroller.cpp" line="+38"/>
        <source>Profile the model&apos;s operators on a real device of this machine into the sample library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+224"/>
        <source>Profile</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-217"/>
        <source>Profiling needs LibTorch, which this build does not include</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Train the performance predictor on the sample library&apos;s samples</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Training needs LibTorch, which this build does not include</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Train</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Measure the operators whose predicted latency is most uncertain on a real device, then retrain the predictor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Adapting the predictor needs LibTorch, which this build does not include</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+137"/>
        <location line="+5"/>
        <source>Adapt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-136"/>
        <source>Sample &amp;library...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Choose the sample library: a file on this machine or a team&apos;s PostgreSQL server</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Sample library: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Profiling...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Profiling on %1 %2: %3 operators measured, %4 reused, %5 failed, %6 not run; sum of measured medians %7 (measured), end to end %8; stored in %9</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Warning: the machine&apos;s speed changed while profiling (%1): these samples may not compare with others. Profile again later to average them; the predictor learns the median of repeated measurements.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Training...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Training: epoch %1/%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Predictor %1 trained and stored in %2; evaluated on the %3 (%4 operators, predicted beside measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Adapting...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Adapt on %1: every operator of the model is already measured; predictor %2 kept</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Adapt on %1: %2 operators measured; MAPE on them %3% before (measured against predicted), %4% after (in-sample); predictor %5 replaces %6 in %7</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+20"/>
        <source>No real device to measure on was discovered.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Measure the most uncertain operators on:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Operators to measure:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>adapting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Adapting the predictor on %1 (%2 operators) in %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Open a model before %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Training the predictor on %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>No real device to profile on was discovered.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Profile the model&apos;s operators on:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-27"/>
        <source>No device &apos;%1&apos; (see the Devices dock).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 is a modelled device: only real devices are profiled.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+29"/>
        <source>profiling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Profiling %1 on %2 into %3</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::QueuePanel</name>
    <message>
        <location filename="../widgets/queuepanel.cpp" line="+42"/>
        <source>%1 measured, %2 reused, %3 failed, %4 not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Job</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>State</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Worker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Attempts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Queued</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lease until</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Read the queue again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+11"/>
        <source>No sample library opened yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+17"/>
        <source>No sample library at %1 yet, so no queued jobs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>reading the profiling queue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+47"/>
        <source>No profiling jobs in %1. Queue some with paretune profile MODEL --device FINGERPRINT --queue; paretune worker measures them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 jobs in %2: %3 queued, %4 running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Cannot read the queue of %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::SearchController</name>
    <message>
        <location filename="../widgets/searchcontroller.cpp" line="+65"/>
        <source>Search &amp;placements on the catalog&apos;s modelled devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Offer other &amp;variants (bf16, int8, fp32-nhwc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Searches also choose how each node runs: bf16 for Conv, MatMul, Gemm and their Relu, Clip and Add, int8 for Conv, MatMul and Gemm, fp32-nhwc (channels-last activations) for Conv and their Relu, Clip and Add, with the estimated accuracy loss as an objective (in place of the third one, memory by default). Measured devices need the variants profiled (paretune profile --variants bf16,int8,fp32-nhwc).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Run the chosen plan on this machine&apos;s devices and compare the measured times with the plan&apos;s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Validation needs LibTorch, which this build does not include</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Export the chosen plan as a deployment bundle (partitions, manifest, profile and candidate plans)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+262"/>
        <location line="+7"/>
        <source>Export bundle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-262"/>
        <location line="+2"/>
        <source>Searching placements...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Placement search started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Placement search %1 after %2 generations: %3 plans on the front (costs %4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+78"/>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-78"/>
        <location line="+78"/>
        <source>finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-33"/>
        <source>Open a model before searching placements.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Search %1: %2 plans on the front, %3 evaluated, hypervolume %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+20"/>
        <source>simulated; costs %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Plan %1 (costs %2): latency %3 ms, energy %4 mJ, peak memory %5 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Validating...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Validation of plan %1 cancelled; nothing was stored</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validation cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Plan %1 validated on %2: latency %3 measured (median of %4 runs, p10 %5, p90 %6) vs %7 predicted (%8), error %9; stored in %10 (plan row %11, %12 per-operator samples)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+12"/>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-5"/>
        <source>Energy %1 mJ measured (%2) vs %3 predicted, error %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Energy not measured: no power counter is readable here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Measured in plan %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Median of %1 runs of plan %2 on this machine, each node on its device in the plan (validation)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+2"/>
        <source>Exporting the bundle...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Export of plan %1 cancelled; nothing was written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Export warning: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Wrote the bundle %1%2: plan %3 in %4 partitions, candidate plans %5; %6 files, %7 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (zip)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Choose a plan on the Pareto front before validating.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Validating plan %1 on this machine (%2 timed runs) into %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Choose a plan on the Pareto front before exporting a bundle.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Exporting plan %1 as a bundle to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Bundle folder (*);;Zip archive (*.zip)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Pareto plans to include for run-time selection:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::TimelineView</name>
    <message>
        <location filename="../widgets/timelineview.cpp" line="+76"/>
        <location line="+38"/>
        <source>transfer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+90"/>
        <source>%1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2) on %3&lt;br&gt;start %4, end %5, duration %6&lt;br&gt;&lt;i&gt;%7&lt;/i&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <source>No plan selected: search placements and pick a plan on the Pareto front.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+83"/>
        <source>measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+0"/>
        <source>simulated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/planjobs.cpp" line="-16"/>
        <source>%1; measured lanes: validation on this machine, the run of median wall time of %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::TrainJob</name>
    <message>
        <location filename="../widgets/trainjob.cpp" line="+32"/>
        <source>training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+24"/>
        <source>training set (in-sample, nothing held out)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>held out: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Training cancelled; nothing was stored.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Training needs LibTorch, which this build does not include.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::TuneController</name>
    <message>
        <location filename="../widgets/tunecontroller.cpp" line="+50"/>
        <source>Search, validate plans along the front and the best baselines on this machine&apos;s devices, learn from what was measured, and search again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Tuning needs LibTorch, which this build does not include</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <location line="+2"/>
        <source>Tuning...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Search: population %1, %2 generations, seed %3, objectives %4. Devices: %5 (catalog %6). Sample library: %7.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Open a model before tuning.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Tuning on %1: up to %2 rounds, %3 front plans per round and the best baselines, %4 interleaved runs each, into %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Tune cancelled during its first round; nothing was stored</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tune cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Claim contradicted by the measurements: plan %1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+8"/>
        <source>Tune %1 after %n round(s): last round&apos;s latency error max %2 %, median %3 %; claims over the baselines: %4 confirmed, %5 contradicted</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+3"/>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>converged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Plan %1: claim contradicted by the measurements: %2; %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Tune round %1%2: %3 plans validated, latency error max %4 %, median %5 %; costs: %6</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source> (stored)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::TuneDialog</name>
    <message>
        <location filename="../widgets/tunedialog.cpp" line="+27"/>
        <source>Tune</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Each round searches with the costs learned so far, runs plans along the front and the best baselines on this machine, timed interleaved, and learns from what was measured inside them. Every round is stored in the sample library; the same settings again resume after the stored rounds.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Rounds (at most):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Front plans validated per round:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Where the plans are short, each runs more often, so that a round&apos;s timed runs last this long: the median then carries less of the machine&apos;s wandering speed. 0: exactly the runs above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Timed runs of each plan per round, at least:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Timed runs last, at least:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::TuneJob</name>
    <message>
        <location filename="../widgets/tunejob.cpp" line="+77"/>
        <source>tuning</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The sample library %1 does not exist: profile the model on each device to tune on first (Workflow &gt; Profile).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Sample library: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Devices to tune on (ticked in the Devices dock): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+31"/>
        <source>; in-plan times of %n earlier tune round(s) (%1 nodes in context, %2 scaled)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Tuning needs LibTorch, which this build does not include.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::TunePanel</name>
    <message>
        <location filename="../widgets/tunepanel.cpp" line="+54"/>
        <source>No tune yet: Workflow &gt; Tune searches, validates plans on this machine&apos;s devices and learns from them, round by round.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+15"/>
        <source>cancelled during round %1 (not stored)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>converged: every validated plan&apos;s latency within %1 % of its prediction</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>not converged within %n round(s) (target %1 %)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>Tune on %1: %n round(s), %2 front plans per round and the best baselines, %3 interleaved runs each; %4. Stored in %5.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Plan %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+14"/>
        <source>No plan of the final front claims to beat a baseline.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>and %1 more confirmed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&lt;b&gt;Claims of the final front over the baselines&lt;/b&gt;, checked against the last round&apos;s measurements: %1 confirmed, %2 contradicted, %3 only predicted (not measured)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::TuneRoundsModel</name>
    <message>
        <location filename="../widgets/tuneroundsmodel.cpp" line="+35"/>
        <source>library costs only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 nodes in context, %2 scaled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 fused groups in context, %2 scaled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 cells in context drawn toward their nodes on other devices (a time&apos;s noise %2 %, the cells&apos; spread %3 %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1 ×%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 beside %2 ×%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 +%2 µs a node (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 +%2 µs a turn on shared cores (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 ×%2 reading a tensor from another device (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 +%2 µs before a turn on shared cores (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>copies into %1 at its turns ×%2 the catalog&apos;s time (measured)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 → %2 handoff %3 µs (catalog %4 µs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>earlier rounds&apos; times at the latest speed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+22"/>
        <source>%1 (stored)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 (%2 at ×%3 speed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Round %1: plans validated on this machine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Predicted at the machine&apos;s speed measured around the runs: ×%1 the round before&apos;s (baselines in rehearsals before and after: %2 compared, %3 runs each)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+8"/>
        <source>New plans over several devices predicted ×%1: how much longer %2 such plans of earlier rounds measured than predicted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Timed %1 times: the machine&apos;s speed moved during the runs (kept: %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The plans run again from the round before took ×%1 as long (the machine&apos;s speed drifted); at that speed the largest error is %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1: predicted %2 ms, measured %3 ms (p10 %4, p90 %5, %6 runs), error %7</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Round</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Plans validated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Max |error|</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Median |error|</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Costs the round searched with</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ValidateJob</name>
    <message>
        <location filename="../widgets/planjobs.cpp" line="-82"/>
        <source>validating the plan</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Validation needs LibTorch, which this build does not include.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::WindowLayout</name>
    <message>
        <location filename="../widgets/windowlayout.cpp" line="+104"/>
        <source>&amp;Default layout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Show every panel, docked where it starts out</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::WorkbenchLog</name>
    <message>
        <location filename="../widgets/workbenchlog.cpp" line="+29"/>
        <source>Failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Paretune</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::WorkspaceController</name>
    <message>
        <location filename="../widgets/workspacecontroller.cpp" line="+66"/>
        <source>Open &amp;workspace...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Save workspace &amp;as...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open &amp;recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>S&amp;ettings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+4"/>
        <source>System default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <source>English</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+10"/>
        <source>The language changes when the workbench restarts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+67"/>
        <source>(none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Clear the list</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+37"/>
        <source>Workspace %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Open a model before saving a workspace.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Saved workspace %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Open workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+8"/>
        <source>Paretune workspaces (*.paretune)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location line="-1"/>
        <source>Save workspace</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
