<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>main</name>
    <message>
        <location filename="../app/workbench/main.cpp" line="+113"/>
        <source>Place neural-network operators on the devices of this machine.</source>
        <translation>将神经网络算子放置到本机的设备上。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>ONNX model or .paretune workspace to open</source>
        <translation>要打开的 ONNX 模型或 .paretune 工作区</translation>
    </message>
    <message>
        <location line="-48"/>
        <source>Save a picture of the window once the model is shown, then quit.</source>
        <translation>模型显示后保存窗口截图，然后退出。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>What --screenshot shows: graph, pareto, timeline, profile, window (these four after a quick search on the catalog&apos;s modelled devices) or tune (after a quick tune, see --tune).</source>
        <translation>--screenshot 显示的内容：graph、pareto、timeline、profile、window（后四者会先在目录的建模设备上快速搜索）或 tune（先快速调优，见 --tune）。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Sample library: an SQLite file, or a PostgreSQL server as postgresql://user@host:port/dbname (the password from PGPASSWORD or ~/.pgpass). Default: the one used last.</source>
        <translation>样本库：SQLite 文件，或写作 postgresql://user@host:port/dbname 的 PostgreSQL 服务器（密码取自 PGPASSWORD 或 ~/.pgpass）。默认：上次使用的样本库。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Device catalog (JSON) for modelled devices.</source>
        <translation>建模设备的设备目录（JSON）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>After loading, search placements on the example catalog&apos;s modelled devices and select the fastest plan.</source>
        <translation>加载后，在示例目录的建模设备上搜索放置方案，并选择最快的方案。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Catalog devices to search on, separated by commas (default: every device of the catalog).</source>
        <translation>要搜索的目录设备，以逗号分隔（默认：目录中的所有设备）。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>After the search, validate the chosen plan on this machine&apos;s devices (a screenshot waits for it).</source>
        <translation>搜索后在本机设备上验证所选方案（截图会等待验证完成）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>After loading, tune on the chosen devices (Workflow &gt; Tune: search, validate, learn, round by round; a screenshot waits for it and uses quick settings).</source>
        <translation>加载后在所选设备上调优（工作流 &gt; 调优：逐轮搜索、验证、学习；截图会等待其完成并使用快速设置）。</translation>
    </message>
</context>
<context>
    <name>paretune::AdaptJob</name>
    <message>
        <location filename="../widgets/adaptjob.cpp" line="+20"/>
        <source>adapting the predictor</source>
        <translation>调整预测器</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>%1 (%2): predicted %3 µs, measured %4 µs</source>
        <translation>%1（%2）：预测 %3 µs，实测 %4 µs</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Adapting the predictor needs LibTorch, which this build does not include.</source>
        <translation>调整预测器需要 LibTorch，而此构建未包含它。</translation>
    </message>
</context>
<context>
    <name>paretune::BundleExportJob</name>
    <message>
        <location filename="../widgets/planjobs.cpp" line="+176"/>
        <source>exporting the bundle</source>
        <translation>导出部署包</translation>
    </message>
</context>
<context>
    <name>paretune::DeviceController</name>
    <message>
        <location filename="../widgets/devicecontroller.cpp" line="+33"/>
        <source>Discovering devices...</source>
        <translation>正在发现设备...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Discover again</source>
        <translation>重新发现</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The catalog devices the placement search uses</source>
        <translation>放置搜索使用的目录设备</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Search places operators on:</source>
        <translation>搜索将算子放置到：</translation>
    </message>
    <message>
        <location line="+55"/>
        <source>The bundled example catalog is missing from the resources.</source>
        <translation>资源中缺少内置的示例目录。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cannot read the device catalog %1: %2</source>
        <translation>无法读取设备目录 %1：%2</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>No CUDA devices.</source>
        <translation>没有 CUDA 设备。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No CUDA devices (%1).</source>
        <translation>没有 CUDA 设备（%1）。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1: the catalog&apos;s %2 &apos;%3&apos; has the id of this machine&apos;s %4; the real device is listed.</source>
        <translation>%1：目录中的 %2“%3”与本机 %4 的 ID 相同；列出的是真实设备。</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>discovering devices</source>
        <translation>发现设备</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Device catalog: %1</source>
        <translation>设备目录：%1</translation>
    </message>
</context>
<context>
    <name>paretune::DeviceListModel</name>
    <message>
        <location filename="../widgets/devicelistmodel.cpp" line="+15"/>
        <source>CPU</source>
        <translation>处理器 (CPU)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>GPU</source>
        <translation>图形处理器 (GPU)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>NPU</source>
        <translation>神经网络处理器 (NPU)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>DSP</source>
        <translation>数字信号处理器 (DSP)</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>Discovered on this machine: can be profiled (CPU devices in this version); its samples are measured.</source>
        <translation>在本机上发现：可以进行性能分析（本版本仅限 CPU 设备）；其样本为实测值。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>From the device catalog: its costs are modelled from the catalog&apos;s figures, never measured.</source>
        <translation>来自设备目录：其开销根据目录中的数据建模，从未实测。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>real</source>
        <translation>真实</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>modelled</source>
        <translation>建模</translation>
    </message>
    <message numerus="yes">
        <location line="+7"/>
        <source>%n core(s)</source>
        <translation>
            <numerusform>%n 个核心</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%n SM(s), %1 MHz</source>
        <translation>
            <numerusform>%n 个 SM，%1 MHz</numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 GFLOP/s, %2 GB/s (catalog)</source>
        <translation>%1 GFLOP/s，%2 GB/s（目录）</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Real / modelled</source>
        <translation>真实 / 建模</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Compute</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
</context>
<context>
    <name>paretune::DocumentController</name>
    <message>
        <location filename="../widgets/documentcontroller.cpp" line="+35"/>
        <source>No model open. Use File &gt; Open to import an ONNX model.</source>
        <translation>未打开模型。请使用“文件 &gt; 打开”导入 ONNX 模型。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Filter nodes by name, op type, kind or shape</source>
        <translation>按名称、算子类型、类别或形状筛选节点</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Show constants</source>
        <translation>显示常量</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>List the constant nodes too (they have no run-time cost)</source>
        <translation>同时列出常量节点（它们没有运行时开销）</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Importing %1...</source>
        <translation>正在导入 %1...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Importing %1</source>
        <translation>正在导入 %1</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>The bundled sample model is missing from the resources.</source>
        <translation>资源中缺少内置的示例模型。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>sample.onnx (bundled)</source>
        <translation>sample.onnx（内置）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open ONNX model</source>
        <translation>打开 ONNX 模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+45"/>
        <source>&lt;b&gt;%1&lt;/b&gt; &amp;nbsp; opset %2 &amp;nbsp; fingerprint &lt;tt&gt;%3&lt;/tt&gt;&lt;br&gt;Inputs: %4&lt;br&gt;%5 nodes (%6 compute, %7 pass-through, %8 constant, %9 folded shape ops) &amp;nbsp; %10 parameters &amp;nbsp; %11FLOPs &lt;i&gt;(computed from shapes)&lt;/i&gt; &amp;nbsp; %12 unknown shapes</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; &amp;nbsp; opset %2 &amp;nbsp; 指纹 &lt;tt&gt;%3&lt;/tt&gt;&lt;br&gt;输入：%4&lt;br&gt;%5 个节点（%6 个计算，%7 个直通，%8 个常量，%9 个已折叠的形状运算） &amp;nbsp; %10 个参数 &amp;nbsp; %11FLOPs &lt;i&gt;（由形状计算）&lt;/i&gt; &amp;nbsp; %12 个未知形状</translation>
    </message>
    <message numerus="yes">
        <location line="+16"/>
        <source>Imported %1: %n warning(s)</source>
        <translation>
            <numerusform>已导入 %1：%n 条警告</numerusform>
        </translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Show constants (%1)</source>
        <translation>显示常量（%1）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 - Paretune Workbench</source>
        <translation>%1 - Paretune 工作台</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Imported %1: %2 nodes, %3 warnings</source>
        <translation>已导入 %1：%2 个节点，%3 条警告</translation>
    </message>
</context>
<context>
    <name>paretune::GraphOverview</name>
    <message>
        <location filename="../widgets/graphoverview.cpp" line="+11"/>
        <source>Overview: click or drag to move the view</source>
        <translation>概览：单击或拖动以移动视图</translation>
    </message>
</context>
<context>
    <name>paretune::GraphView</name>
    <message>
        <location filename="../widgets/graphview.cpp" line="+47"/>
        <source>Colour by:</source>
        <translation>着色依据：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Device of the selected plan</source>
        <translation>所选方案的设备</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Latency on the plan&apos;s devices</source>
        <translation>方案所用设备上的延迟</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Precision of the selected plan</source>
        <translation>所选方案的精度</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Find node by name or op type (Ctrl+F, Enter for next)</source>
        <translation>按名称或算子类型查找节点（Ctrl+F，回车查找下一个）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show the whole graph (0)</source>
        <translation>显示整个计算图 (0)</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+97"/>
        <source>No model open.</source>
        <translation>未打开模型。</translation>
    </message>
    <message>
        <location line="-77"/>
        <source>Find node</source>
        <translation>查找节点</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>&amp;Colour graph by</source>
        <translation>图着色依据(&amp;C)</translation>
    </message>
    <message>
        <location line="+66"/>
        <source>Laying out the graph...</source>
        <translation>正在布局计算图...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>laying out the graph</source>
        <translation>布局计算图</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Layout failed: %1</source>
        <translation>布局失败：%1</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>%1 nodes laid out in %2 ms</source>
        <translation>已布局 %1 个节点，用时 %2 ms</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>; %1 items, %2 of them folded groups (double-click a group to expand it)</source>
        <translation>；共 %1 项，其中 %2 个为折叠的分组（双击分组可展开）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>; %1 constant nodes not drawn</source>
        <translation>；未绘制 %1 个常量节点</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>%1FLOPs (computed from shapes)</source>
        <translation>%1FLOPs（由形状计算）</translation>
    </message>
    <message numerus="yes">
        <location line="+19"/>
        <source>%n ops</source>
        <translation>
            <numerusform>%n 个算子</numerusform>
        </translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1: %2 (%3)
Double-click to expand</source>
        <translation>%1：%2（%3）
双击展开</translation>
    </message>
    <message>
        <location filename="../widgets/graphview_plan.cpp" line="+99"/>
        <source>Fusion group %1: runs as one node</source>
        <translation>融合组 %1：作为一个节点运行</translation>
    </message>
    <message numerus="yes">
        <location line="+43"/>
        <source>%1 runs in fp32 on %n of its device&apos;s threads</source>
        <translation>
            <numerusform>%1 以 fp32 运行，使用其设备的 %n 个线程</numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 runs in %2 (its inputs converted, its output back to fp32)</source>
        <translation>%1 以 %2 运行（输入先转换，输出转换回 fp32）</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;&amp;#9633;&lt;/span&gt; fusion group, run as one node (%2 in this plan)</source>
        <translation>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;&amp;#9633;&lt;/span&gt; 融合组，作为一个节点运行（本方案中 %2 个）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;&amp;#8943;&lt;/span&gt; node in another variant (%2 in this plan)</source>
        <translation>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;&amp;#8943;&lt;/span&gt; 以其他变体运行的节点（本方案中 %2 个）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;%2&lt;/span&gt; of them on their own threads (%3), coloured by their precision</source>
        <translation>&lt;br&gt;&lt;span style=&quot;color:%1&quot;&gt;%2&lt;/span&gt; 其中使用自己线程数的节点（%3 个），按其精度着色</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>&lt;b&gt;No plan selected&lt;/b&gt;&lt;br&gt;%1 compute &amp;nbsp; %2 no run-time cost &amp;nbsp; %3 folded group&lt;br&gt;&lt;i&gt;Search placements and pick a plan to colour by device.&lt;/i&gt;</source>
        <translation>&lt;b&gt;未选择方案&lt;/b&gt;&lt;br&gt;%1 计算 &amp;nbsp; %2 无运行时开销 &amp;nbsp; %3 折叠的分组&lt;br&gt;&lt;i&gt;搜索放置方案并选择一个方案，即可按设备着色。&lt;/i&gt;</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>&lt;b&gt;Device in plan %1&lt;/b&gt;&lt;br&gt;%2 &amp;nbsp; %3 not placed&lt;br&gt;&lt;span style=&quot;color:#d62728&quot;&gt;- - -&lt;/span&gt; transfer between devices</source>
        <translation>&lt;b&gt;方案 %1 中的设备&lt;/b&gt;&lt;br&gt;%2 &amp;nbsp; %3 未放置&lt;br&gt;&lt;span style=&quot;color:#d62728&quot;&gt;- - -&lt;/span&gt; 设备间传输</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>&lt;b&gt;No latency data&lt;/b&gt;&lt;br&gt;&lt;i&gt;Search placements and pick a plan: its devices&apos; costs colour the nodes.&lt;/i&gt;</source>
        <translation>&lt;b&gt;无延迟数据&lt;/b&gt;&lt;br&gt;&lt;i&gt;搜索放置方案并选择一个方案：用其设备上的开销为节点着色。&lt;/i&gt;</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>&lt;b&gt;Latency on the device of plan %1&lt;/b&gt; (%2, log scale)&lt;br&gt;%3 %4 &amp;nbsp; %5 &amp;nbsp; %6 no cost</source>
        <translation>&lt;b&gt;方案 %1 所用设备上的延迟&lt;/b&gt;（%2，对数刻度）&lt;br&gt;%3 %4 &amp;nbsp; %5 &amp;nbsp; %6 无开销</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>%1 %2 (%3 compute nodes)</source>
        <translation>%1 %2（%3 个计算节点）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&lt;b&gt;No plan selected&lt;/b&gt;&lt;br&gt;%1&lt;br&gt;&lt;i&gt;Search placements with other variants offered and pick a plan to colour by variant.&lt;/i&gt;</source>
        <translation>&lt;b&gt;未选择方案&lt;/b&gt;&lt;br&gt;%1&lt;br&gt;&lt;i&gt;在提供其他变体的情况下搜索放置方案，并选择一个方案以按变体着色。&lt;/i&gt;</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&lt;b&gt;Variant in plan %1&lt;/b&gt;&lt;br&gt;%2</source>
        <translation>&lt;b&gt;方案 %1 中的变体&lt;/b&gt;&lt;br&gt;%2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&lt;br&gt;&lt;i&gt;This search offered fp32 only (Search &amp;gt; Offer other variants).&lt;/i&gt;</source>
        <translation>&lt;br&gt;&lt;i&gt;本次搜索只提供了 fp32（搜索 &amp;gt; 提供其他变体）。&lt;/i&gt;</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>%1 (kept in %2)</source>
        <translation>%1（保持为 %2）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>transfer %1 → %2: %3, %4 (modelled link)</source>
        <translation>传输 %1 → %2：%3，%4（链路为建模值）</translation>
    </message>
    <message numerus="yes">
        <location line="+12"/>
        <source>and %n more tensors</source>
        <translation>
            <numerusform>以及另外 %n 个张量</numerusform>
        </translation>
    </message>
    <message>
        <location line="+39"/>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Plan %1: %2</source>
        <translation>方案 %1：%2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not placed</source>
        <translation>未放置</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>, %1 (%2)</source>
        <translation>，%1（%2）</translation>
    </message>
    <message>
        <location filename="../widgets/graphview.cpp" line="+159"/>
        <source>Found %1 (%2)</source>
        <translation>已找到 %1（%2）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No drawn node matches &quot;%1&quot;</source>
        <translation>没有已绘制的节点匹配“%1”</translation>
    </message>
</context>
<context>
    <name>paretune::JobRunner</name>
    <message>
        <location filename="../widgets/jobrunner.cpp" line="+102"/>
        <location line="+2"/>
        <source>Internal error while %1: %2</source>
        <translation>%1 时发生内部错误：%2</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>an unknown exception</source>
        <translation>未知异常</translation>
    </message>
</context>
<context>
    <name>paretune::JobStatusWidget</name>
    <message>
        <location filename="../widgets/jobstatuswidget.cpp" line="+13"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>paretune::LibraryDialog</name>
    <message>
        <location filename="../widgets/librarydialog.cpp" line="+30"/>
        <source>Sample Library</source>
        <translation>样本库</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>A file on this machine (SQLite)</source>
        <translation>本机上的文件（SQLite）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Browse...</source>
        <translation>浏览...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>A team&apos;s PostgreSQL server</source>
        <translation>团队的 PostgreSQL 服务器</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>default (5432)</source>
        <translation>默认 (5432)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>your login name</source>
        <translation>你的登录名</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>from ~/.pgpass when empty</source>
        <translation>留空时取自 ~/.pgpass</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Host:</source>
        <translation>主机：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Port:</source>
        <translation>端口：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Database:</source>
        <translation>数据库：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>User:</source>
        <translation>用户：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Password:</source>
        <translation>密码：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The password is used for this session only: it is never saved, shown or written to the log. To connect without typing it, put it in ~/.pgpass.</source>
        <translation>密码仅用于本次会话：不会被保存、显示或写入日志。若不想每次输入，请把它放进 ~/.pgpass。</translation>
    </message>
    <message>
        <location line="+47"/>
        <source>Sample library</source>
        <translation>样本库</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sample libraries (*.db);;All files (*)</source>
        <translation>样本库 (*.db);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Name the library&apos;s file.</source>
        <translation>请指定样本库文件。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>That is a server&apos;s address: choose &quot;A team&apos;s PostgreSQL server&quot;.</source>
        <translation>这是服务器地址：请选择“团队的 PostgreSQL 服务器”。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Name the database on the server.</source>
        <translation>请指定服务器上的数据库。</translation>
    </message>
</context>
<context>
    <name>paretune::MainWindow</name>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="+39"/>
        <source>Paretune Workbench</source>
        <translation>Paretune 工作台</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Open model...</source>
        <translation>打开模型(&amp;O)...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open &amp;sample model</source>
        <translation>打开示例模型(&amp;S)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location line="-33"/>
        <source>Pareto front</source>
        <translation>帕累托前沿</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>&amp;Search</source>
        <translation>搜索(&amp;S)</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About Paretune</source>
        <translation>关于 Paretune(&amp;A)</translation>
    </message>
    <message>
        <location line="-41"/>
        <source>Tune</source>
        <translation>调优</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location line="-56"/>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Log / Issues</source>
        <translation>日志 / 问题</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Predictor</source>
        <translation>预测器</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location line="+42"/>
        <source>Workflow</source>
        <translation>工作流程</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Workflow</source>
        <translation>工作流程(&amp;W)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open an ONNX model</source>
        <translation>打开 ONNX 模型</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>About Paretune</source>
        <translation>关于 Paretune</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&lt;b&gt;Paretune Workbench&lt;/b&gt;&lt;br&gt;Profile, predict and place neural-network operators on the devices of this machine.</source>
        <translation>&lt;b&gt;Paretune 工作台&lt;/b&gt;&lt;br&gt;在本机的设备上对神经网络算子进行性能分析、预测和放置。</translation>
    </message>
    <message>
        <location line="-100"/>
        <source>Per-layer profile</source>
        <translation>逐层性能分析</translation>
    </message>
</context>
<context>
    <name>paretune::MeasuredPoint</name>
    <message>
        <location filename="../widgets/measuredpoints.cpp" line="+54"/>
        <source>latency %1 ms (p10 %2, p90 %3, %4 runs), predicted %5 ms, error %6%7 %</source>
        <translation>延迟 %1 ms（p10 %2，p90 %3，%4 次运行），预测 %5 ms，误差 %6%7 %</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>energy %1 mJ</source>
        <translation>能耗 %1 mJ</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>peak memory %1 MiB, predicted %2 MiB</source>
        <translation>峰值内存 %1 MiB，预测 %2 MiB</translation>
    </message>
</context>
<context>
    <name>paretune::MemoryView</name>
    <message>
        <location filename="../widgets/memoryview.cpp" line="+58"/>
        <source>workspace of %1</source>
        <translation>%1 的工作区</translation>
    </message>
    <message>
        <location line="+109"/>
        <source>%1 (%2): %3 at offset %4, steps %5 to %6</source>
        <translation>%1（%2）：%3，偏移 %4，步骤 %5 至 %6</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>, written in place of its input</source>
        <translation>，原地写入其输入</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1: arena %2 (naive %3, live peak %4), weights %5, largest workspace %6</source>
        <translation>%1：内存池 %2（朴素合计 %3，存活峰值 %4），权重 %5，最大工作区 %6</translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>, %n written in place</source>
        <translation>
            <numerusform>，%n 个原地写入</numerusform>
        </translation>
    </message>
    <message>
        <location line="+11"/>
        <source>No plan selected: pick a plan on the Pareto front to see its memory plan.</source>
        <translation>未选择方案：在帕累托前沿上选择一个方案以查看其内存计划。</translation>
    </message>
</context>
<context>
    <name>paretune::ModelLoader</name>
    <message>
        <location filename="../widgets/modelloader.cpp" line="+16"/>
        <source>importing %1</source>
        <translation>导入 %1</translation>
    </message>
</context>
<context>
    <name>paretune::NodeProperties</name>
    <message>
        <location filename="../widgets/nodeproperties.cpp" line="+33"/>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>graph input</source>
        <translation>图输入</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>graph output</source>
        <translation>图输出</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>&lt;i&gt;Select a node in the graph or the per-layer profile to see its properties.&lt;/i&gt;</source>
        <translation>&lt;i&gt;在计算图或逐层性能分析中选择一个节点以查看其属性。&lt;/i&gt;</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Op type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (unknown operator)</source>
        <translation>（未知算子）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>attribute %1</source>
        <translation>属性 %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Work (computed from shapes)</source>
        <translation>计算量（由形状计算）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bytes read</source>
        <translation>读取字节数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bytes written</source>
        <translation>写入字节数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cost per device</source>
        <translation>各设备上的开销</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&lt;i&gt;No costs available: no search has run on this model. Search placements to see this node&apos;s modelled, predicted or measured cost on each device.&lt;/i&gt;</source>
        <translation>&lt;i&gt;无可用开销：尚未对此模型运行搜索。搜索放置方案后，可查看此节点在各设备上的建模、预测或实测开销。&lt;/i&gt;</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>From the current search&apos;s cost table (%1).</source>
        <translation>来自当前搜索的开销表（%1）。</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+58"/>
        <location line="+31"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location line="-89"/>
        <location line="+58"/>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <location line="-58"/>
        <source>Energy</source>
        <translation>能耗</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Workspace</source>
        <translation>工作空间</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+59"/>
        <location line="+30"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location line="-83"/>
        <location line="+35"/>
        <source> (plan)</source>
        <translation>（方案）</translation>
    </message>
    <message>
        <location line="-30"/>
        <source>not supported on this device</source>
        <translation>此设备不支持</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Precision variants</source>
        <translation>精度变体</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The node in another variant, its conversions included; the deviation is how much running it so moves the model&apos;s outputs from fp32 (relative L2 error, measured one node at a time on random inputs: accuracy on real data may differ).</source>
        <translation>以其他变体运行的该节点（含其转换）；偏差是这样运行使模型输出偏离 fp32 的程度（相对 L2 误差，逐个节点在随机输入上测得：真实数据上的精度可能不同）。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Output deviation</source>
        <translation>输出偏差</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Fusion group</source>
        <translation>融合组</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1: %2 run as one node%3.</source>
        <translation>%1：%2 作为一个节点运行%3。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> (the plan takes it)</source>
        <translation>（本方案采用）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (the plan does not take it)</source>
        <translation>（本方案未采用）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>As one node</source>
        <translation>作为一个节点</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Members apart</source>
        <translation>成员分开运行</translation>
    </message>
    <message>
        <location line="+12"/>
        <location line="+1"/>
        <source>not supported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <location filename="../widgets/graphdock.cpp" line="+17"/>
        <source>Node properties</source>
        <translation>节点属性</translation>
    </message>
</context>
<context>
    <name>paretune::NodeTableModel</name>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="+93"/>
        <location line="+4"/>
        <location line="+146"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>modelled</source>
        <translation>建模</translation>
    </message>
    <message>
        <location line="-70"/>
        <location line="+74"/>
        <source>unsupported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <location line="-83"/>
        <source>%1 on %2: %3</source>
        <translation>%1（%2）：%3</translation>
    </message>
    <message>
        <location line="+4"/>
        <source> (%1)</source>
        <translation>（%1）</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1 µJ</source>
        <translation>%1 µJ</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <location line="-100"/>
        <location line="+50"/>
        <location line="+60"/>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <location line="-145"/>
        <source>Median latency measured on %1 (sample library)</source>
        <translation>在 %1 上实测的延迟中位数（样本库）</translation>
    </message>
    <message>
        <location line="+274"/>
        <source> (unknown op)</source>
        <translation>（未知算子）</translation>
    </message>
    <message>
        <location line="-275"/>
        <source>Measured on %1</source>
        <translation>在 %1 上实测</translation>
    </message>
    <message>
        <location line="+200"/>
        <location line="+8"/>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>constant</source>
        <translation>常量</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>pass-through</source>
        <translation>直通</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>shape computation</source>
        <translation>形状计算</translation>
    </message>
    <message>
        <location line="+111"/>
        <source>Latency on %1</source>
        <translation>%1 上的延迟</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Op type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Device (selected plan)</source>
        <translation>设备（所选方案）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>FLOPs (from shapes)</source>
        <translation>FLOPs（由形状计算）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Read</source>
        <translation>读取</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Written</source>
        <translation>写入</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Signature</source>
        <translation>签名</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Latency (plan)</source>
        <translation>延迟（方案）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Memory (plan)</source>
        <translation>内存（方案）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Energy (plan)</source>
        <translation>能耗（方案）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Share of device time</source>
        <translation>占设备时间比例</translation>
    </message>
</context>
<context>
    <name>paretune::ParetoPlot</name>
    <message>
        <location filename="../widgets/objectivetexts.cpp" line="+22"/>
        <source>ms</source>
        <translation>ms</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>mJ</source>
        <translation>mJ</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>W</source>
        <translation>W</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <location line="-10"/>
        <source>latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>energy</source>
        <translation>能耗</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>average power</source>
        <translation>平均功率</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>peak memory</source>
        <translation>峰值内存</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Latency (ms)</source>
        <translation>延迟（毫秒）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Energy per inference (mJ)</source>
        <translation>每次推理能耗（毫焦）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Average power (W)</source>
        <translation>平均功率（瓦）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Peak memory (MiB)</source>
        <translation>峰值内存（MiB）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>accuracy loss</source>
        <translation>精度损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accuracy loss (estimated deviation, %)</source>
        <translation>精度损失（估计偏差，%）</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot.cpp" line="+61"/>
        <source>X:</source>
        <translation>X：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Y:</source>
        <translation>Y：</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Pareto front</source>
        <translation>帕累托前沿</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Baselines</source>
        <translation>基线</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Dominated baselines</source>
        <translation>被支配的基线</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Selected plan</source>
        <translation>所选方案</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Compared plan (Ctrl+click)</source>
        <translation>对比方案（Ctrl+单击）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>measured (p10–p90)</source>
        <translation>实测（p10–p90）</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>No plans yet.
Open a model and run Search &gt; Search placements: the Pareto front of its placements appears here.</source>
        <translation>尚无方案。
打开模型并运行“搜索 &gt; 搜索放置方案”：其放置方案的帕累托前沿将显示在这里。</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Generation</source>
        <translation>代数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hypervolume</source>
        <translation>超体积</translation>
    </message>
    <message>
        <location line="+73"/>
        <source>Colour: %1</source>
        <translation>颜色：%1</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>%1 plans on the front; costs %2</source>
        <translation>前沿上有 %1 个方案；开销%2</translation>
    </message>
    <message numerus="yes">
        <location line="+4"/>
        <source>%n plan(s) measured on this machine: choose latency on an axis to see them</source>
        <translation>
            <numerusform>%n 个方案已在本机实测：在某一坐标轴上选择延迟即可看到</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>%n plan(s) measured on this machine, at their median latency (p10–p90 bars), joined to their simulated points</source>
        <translation>
            <numerusform>%n 个方案已在本机实测，画在其延迟中位数处（p10–p90 误差棒），并与其模拟点相连</numerusform>
        </translation>
    </message>
    <message>
        <location line="+38"/>
        <source> (infeasible)</source>
        <translation>（不可行）</translation>
    </message>
    <message>
        <location line="+156"/>
        <source>infeasible (violation %1)</source>
        <translation>不可行（违反量 %1）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>simulated; costs %1</source>
        <translation>模拟；开销%1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>measured: %1</source>
        <translation>实测：%1</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>%1, measured on this machine</source>
        <translation>%1，在本机实测</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Baseline %1</source>
        <translation>基线 %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Plan %1</source>
        <translation>方案 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Plan %1 (baseline %2)</source>
        <translation>方案 %1（基线 %2）</translation>
    </message>
    <message>
        <location filename="../widgets/paretoplot_compare.cpp" line="+41"/>
        <source>&lt;b&gt;Plan %1 vs plan %2&lt;/b&gt; (simulated; costs %3):</source>
        <translation>&lt;b&gt;方案 %1 对比方案 %2&lt;/b&gt;（模拟；开销%3）：</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 %2%3 %4 (%5%6 %)</source>
        <translation>%1 %2%3 %4（%5%6 %）</translation>
    </message>
    <message numerus="yes">
        <location line="+13"/>
        <source>%n node(s) on different devices</source>
        <translation>
            <numerusform>%n 个节点位于不同设备上</numerusform>
        </translation>
    </message>
    <message>
        <location line="+14"/>
        <source>, and %1 more</source>
        <translation>，以及另外 %1 个</translation>
    </message>
</context>
<context>
    <name>paretune::PlacementSearch</name>
    <message>
        <location filename="../widgets/placementsearch.cpp" line="+71"/>
        <source>searching placements</source>
        <translation>搜索放置方案</translation>
    </message>
    <message>
        <location line="-46"/>
        <source>modelled from %1</source>
        <translation>根据 %1 建模</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>measured (%1 cells) and predicted (%2 cells) from %3, else modelled from %4</source>
        <translation>来自 %3 的实测（%1 个单元）和预测（%2 个单元），其余由 %4 建模</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>; scaled by the model&apos;s measured whole-model runs (%1)</source>
        <translation>；按模型实测的整模型运行缩放（%1）</translation>
    </message>
</context>
<context>
    <name>paretune::PlanClaim</name>
    <message>
        <location filename="../widgets/measuredpoints.cpp" line="-50"/>
        <source>confirmed</source>
        <translation>已证实</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>contradicted</source>
        <translation>被推翻</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>predicted</source>
        <translation>仅预测</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>unmeasured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not measured</source>
        <translation>不测量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>energy</source>
        <translation>能耗</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>power</source>
        <translation>功率</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>dominates %1, better in %2: %3</source>
        <translation>支配 %1，在 %2 方面更优：%3</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>better than %1 in %2: %3</source>
        <translation>在 %2 方面优于 %1：%3</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Claim contradicted: %1</source>
        <translation>声明被推翻：%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Claim: %1</source>
        <translation>声明：%1</translation>
    </message>
</context>
<context>
    <name>paretune::PredictorPanel</name>
    <message>
        <location filename="../widgets/predictorpanel.cpp" line="+27"/>
        <source>No sample library opened yet.</source>
        <translation>尚未打开样本库。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>validation loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Measured latency (µs, held-out)</source>
        <translation>实测延迟（µs，留出集）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Predicted latency (µs)</source>
        <translation>预测延迟（µs）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Predictor</source>
        <translation>预测器</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Roofline baseline (modelled)</source>
        <translation>Roofline 基线（建模）</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>No sample library at %1 yet: profile a model on a real device to create it. No predictor is trained; costs are modelled.</source>
        <translation>%1 处尚无样本库：在真实设备上分析一个模型即可创建。尚未训练预测器；开销为建模值。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Reading the predictors of %1 ...</source>
        <translation>正在读取 %1 中的预测器……</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>reading the predictors</source>
        <translation>读取预测器</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>predictor #%1 trained %2</source>
        <translation>预测器 #%1，训练于 %2</translation>
    </message>
    <message>
        <location line="-24"/>
        <source>Cannot read the predictors of %1: %2</source>
        <translation>无法读取 %1 中的预测器：%2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No predictor is trained in %1 yet: costs come from measured samples and the catalog (modelled). Train one once samples are profiled.</source>
        <translation>%1 中尚未训练预测器：开销来自实测样本和目录（建模）。完成样本分析后即可训练。</translation>
    </message>
    <message numerus="yes">
        <location line="+23"/>
        <source>%n predictor(s) in %1; the latest: %2 (metrics as stored).</source>
        <translation>
            <numerusform>%1 中有 %n 个预测器；最新的：%2（指标为存储值）。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Training...</source>
        <translation>正在训练...</translation>
    </message>
    <message>
        <location filename="../widgets/accuracyrows.cpp" line="+17"/>
        <source>MAPE %</source>
        <translation>MAPE %</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Share within ±10%</source>
        <translation>误差在 ±10% 以内的比例</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Spearman</source>
        <translation>Spearman 相关系数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>End-to-end error %</source>
        <translation>端到端误差 %</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>%1 (%2 ops)</source>
        <translation>%1（%2 个算子）</translation>
    </message>
</context>
<context>
    <name>paretune::ProfileJob</name>
    <message>
        <location filename="../widgets/profilejob.cpp" line="+28"/>
        <source>profiling</source>
        <translation>性能分析</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Profiling needs LibTorch, which this build does not include.</source>
        <translation>性能分析需要 LibTorch，而此构建不包含它。</translation>
    </message>
</context>
<context>
    <name>paretune::ProfilingController</name>
    <message>
        <location filename="../widgets/profilingcontroller.cpp" line="+38"/>
        <source>Profile the model&apos;s operators on a real device of this machine into the sample library</source>
        <translation>在本机的真实设备上分析模型的算子，并写入样本库</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+224"/>
        <source>Profile</source>
        <translation>性能分析</translation>
    </message>
    <message>
        <location line="-217"/>
        <source>Profiling needs LibTorch, which this build does not include</source>
        <translation>性能分析需要 LibTorch，而此构建不包含它</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Train the performance predictor on the sample library&apos;s samples</source>
        <translation>用样本库中的样本训练性能预测器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Training needs LibTorch, which this build does not include</source>
        <translation>训练需要 LibTorch，而此构建不包含它</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Measure the operators whose predicted latency is most uncertain on a real device, then retrain the predictor</source>
        <translation>在真实设备上测量预测延迟最不确定的算子，然后重新训练预测器</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Adapting the predictor needs LibTorch, which this build does not include</source>
        <translation>调整预测器需要 LibTorch，而此构建未包含它</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+137"/>
        <location line="+5"/>
        <source>Adapt</source>
        <translation>调整</translation>
    </message>
    <message>
        <location line="-136"/>
        <source>Sample &amp;library...</source>
        <translation>样本库(&amp;L)...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Choose the sample library: a file on this machine or a team&apos;s PostgreSQL server</source>
        <translation>选择样本库：本机上的文件或团队的 PostgreSQL 服务器</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Sample library: %1</source>
        <translation>样本库：%1</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Profiling...</source>
        <translation>正在进行性能分析...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Profiling on %1 %2: %3 operators measured, %4 reused, %5 failed, %6 not run; sum of measured medians %7 (measured), end to end %8; stored in %9</source>
        <translation>在 %1 上的性能分析%2：实测 %3 个算子，复用 %4 个，失败 %5 个，未运行 %6 个；实测中位数之和 %7（实测），端到端 %8；已存入 %9</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Warning: the machine&apos;s speed changed while profiling (%1): these samples may not compare with others. Profile again later to average them; the predictor learns the median of repeated measurements.</source>
        <translation>警告：性能分析期间机器速度发生了变化（%1）：这些样本可能无法与其他样本比较。请稍后再次分析以取平均；预测器学习重复测量的中位数。</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Training...</source>
        <translation>正在训练...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Training: epoch %1/%2</source>
        <translation>训练中：第 %1/%2 轮</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Predictor %1 trained and stored in %2; evaluated on the %3 (%4 operators, predicted beside measured)</source>
        <translation>预测器 %1 已训练并存入 %2；评估数据：%3（%4 个算子，预测值与实测值对照）</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Adapting...</source>
        <translation>正在调整...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Adapt on %1: every operator of the model is already measured; predictor %2 kept</source>
        <translation>在 %1 上调整：模型的每个算子都已测量；保留预测器 %2</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Adapt on %1: %2 operators measured; MAPE on them %3% before (measured against predicted), %4% after (in-sample); predictor %5 replaces %6 in %7</source>
        <translation>在 %1 上调整：测量了 %2 个算子；其 MAPE 调整前为 %3%（实测对比预测），调整后为 %4%（样本内）；%7 中预测器 %5 取代 %6</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>No real device to measure on was discovered.</source>
        <translation>未发现可用于测量的真实设备。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Measure the most uncertain operators on:</source>
        <translation>在以下设备上测量最不确定的算子：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Operators to measure:</source>
        <translation>要测量的算子数：</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>adapting</source>
        <translation>调整</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Adapting the predictor on %1 (%2 operators) in %3</source>
        <translation>正在 %1 上调整预测器（%2 个算子），样本库 %3</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Open a model before %1.</source>
        <translation>请先打开模型再进行%1。</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Training the predictor on %1</source>
        <translation>正在用 %1 训练预测器</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>No real device to profile on was discovered.</source>
        <translation>未发现可用于性能分析的真实设备。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Profile the model&apos;s operators on:</source>
        <translation>在以下设备上分析模型的算子：</translation>
    </message>
    <message>
        <location line="-27"/>
        <source>No device &apos;%1&apos; (see the Devices dock).</source>
        <translation>没有设备“%1”（见“设备”面板）。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 is a modelled device: only real devices are profiled.</source>
        <translation>%1 是建模设备：只有真实设备才能进行性能分析。</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>profiling</source>
        <translation>性能分析</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Profiling %1 on %2 into %3</source>
        <translation>正在 %2 上分析 %1，写入 %3</translation>
    </message>
</context>
<context>
    <name>paretune::QueuePanel</name>
    <message>
        <location filename="../widgets/queuepanel.cpp" line="+42"/>
        <source>%1 measured, %2 reused, %3 failed, %4 not run</source>
        <translation>实测 %1，复用 %2，失败 %3，未运行 %4</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Job</source>
        <translation>作业</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Worker</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Queued</source>
        <translation>入队时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lease until</source>
        <translation>租约到期</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Read the queue again</source>
        <translation>重新读取队列</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>No sample library opened yet.</source>
        <translation>尚未打开样本库。</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>No sample library at %1 yet, so no queued jobs.</source>
        <translation>%1 处尚无样本库，因此没有排队的作业。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>reading the profiling queue</source>
        <translation>读取性能分析队列</translation>
    </message>
    <message>
        <location line="+47"/>
        <source>No profiling jobs in %1. Queue some with paretune profile MODEL --device FINGERPRINT --queue; paretune worker measures them.</source>
        <translation>%1 中没有性能分析作业。可用 paretune profile MODEL --device FINGERPRINT --queue 排队，由 paretune worker 测量。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 jobs in %2: %3 queued, %4 running.</source>
        <translation>%2 中有 %1 个作业：%3 个排队，%4 个运行中。</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Cannot read the queue of %1: %2</source>
        <translation>无法读取 %1 的队列：%2</translation>
    </message>
</context>
<context>
    <name>paretune::SearchController</name>
    <message>
        <location filename="../widgets/searchcontroller.cpp" line="+65"/>
        <source>Search &amp;placements on the catalog&apos;s modelled devices</source>
        <translation>在目录的建模设备上搜索放置方案(&amp;P)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Offer other &amp;variants (bf16, int8, fp32-nhwc)</source>
        <translation>提供其他变体(bf16、int8、fp32-nhwc)(&amp;V)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Searches also choose how each node runs: bf16 for Conv, MatMul, Gemm and their Relu, Clip and Add, int8 for Conv, MatMul and Gemm, fp32-nhwc (channels-last activations) for Conv and their Relu, Clip and Add, with the estimated accuracy loss as an objective (in place of the third one, memory by default). Measured devices need the variants profiled (paretune profile --variants bf16,int8,fp32-nhwc).</source>
        <translation>搜索同时选择每个节点的运行方式:Conv、MatMul、Gemm 及其 Relu、Clip 和 Add 可用 bf16,Conv、MatMul 和 Gemm 可用 int8,Conv 及其 Relu、Clip 和 Add 可用 fp32-nhwc(通道在后的激活布局),并以估计的精度损失作为一个目标(取代第三个目标,默认为内存)。实测设备需要先分析这些变体(paretune profile --variants bf16,int8,fp32-nhwc)。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Run the chosen plan on this machine&apos;s devices and compare the measured times with the plan&apos;s</source>
        <translation>在本机设备上运行所选方案，并将实测时间与方案时间比较</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Validation needs LibTorch, which this build does not include</source>
        <translation>验证需要 LibTorch，此版本未包含</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validate</source>
        <translation>验证</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Export the chosen plan as a deployment bundle (partitions, manifest, profile and candidate plans)</source>
        <translation>将所选方案导出为部署包（分区、清单、性能剖析和候选方案）</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+262"/>
        <location line="+7"/>
        <source>Export bundle</source>
        <translation>导出部署包</translation>
    </message>
    <message>
        <location line="-262"/>
        <location line="+2"/>
        <source>Searching placements...</source>
        <translation>正在搜索放置方案...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Placement search started</source>
        <translation>放置搜索已开始</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Placement search %1 after %2 generations: %3 plans on the front (costs %4)</source>
        <translation>放置搜索在 %2 代后%1：前沿上有 %3 个方案（开销%4）</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+78"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="-78"/>
        <location line="+78"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location line="-33"/>
        <source>Open a model before searching placements.</source>
        <translation>请先打开模型再搜索放置方案。</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Search %1: %2 plans on the front, %3 evaluated, hypervolume %4</source>
        <translation>搜索%1：前沿上有 %2 个方案，已评估 %3 个，超体积 %4</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>simulated; costs %1</source>
        <translation>模拟；开销%1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Plan %1 (costs %2): latency %3 ms, energy %4 mJ, peak memory %5 MiB</source>
        <translation>方案 %1（开销%2）：延迟 %3 ms，能耗 %4 mJ，峰值内存 %5 MiB</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Validating...</source>
        <translation>正在验证...</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Validation of plan %1 cancelled; nothing was stored</source>
        <translation>方案 %1 的验证已取消；未保存任何内容</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validation cancelled</source>
        <translation>验证已取消</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Plan %1 validated on %2: latency %3 measured (median of %4 runs, p10 %5, p90 %6) vs %7 predicted (%8), error %9; stored in %10 (plan row %11, %12 per-operator samples)</source>
        <translation>方案 %1 已在 %2 上验证：实测延迟 %3（%4 次运行的中位数，p10 %5，p90 %6），预测 %7（%8），误差 %9；已保存到 %10（方案行 %11，%12 个逐算子样本）</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+12"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>Energy %1 mJ measured (%2) vs %3 predicted, error %4</source>
        <translation>实测能耗 %1 mJ（%2），预测 %3，误差 %4</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Energy not measured: no power counter is readable here</source>
        <translation>未测量能耗：此处没有可读的功耗计数器</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Measured in plan %1</source>
        <translation>方案 %1 中实测</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Median of %1 runs of plan %2 on this machine, each node on its device in the plan (validation)</source>
        <translation>方案 %2 在本机上运行 %1 次的中位数，每个节点位于方案为其指定的设备上（验证）</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+2"/>
        <source>Exporting the bundle...</source>
        <translation>正在导出部署包...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Export of plan %1 cancelled; nothing was written</source>
        <translation>方案 %1 的导出已取消；未写入任何内容</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export cancelled</source>
        <translation>导出已取消</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Export warning: %1</source>
        <translation>导出警告：%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Wrote the bundle %1%2: plan %3 in %4 partitions, candidate plans %5; %6 files, %7 MiB</source>
        <translation>已写入部署包 %1%2：方案 %3，%4 个分区，候选方案 %5；%6 个文件，%7 MiB</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (zip)</source>
        <translation>（zip）</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Choose a plan on the Pareto front before validating.</source>
        <translation>验证前请先在帕累托前沿上选择一个方案。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Validating plan %1 on this machine (%2 timed runs) into %3</source>
        <translation>正在本机上验证方案 %1（%2 次计时运行），结果写入 %3</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Choose a plan on the Pareto front before exporting a bundle.</source>
        <translation>导出部署包前请先在帕累托前沿上选择一个方案。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Exporting plan %1 as a bundle to %2</source>
        <translation>正在将方案 %1 导出为部署包到 %2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Bundle folder (*);;Zip archive (*.zip)</source>
        <translation>部署包文件夹 (*);;Zip 压缩包 (*.zip)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Pareto plans to include for run-time selection:</source>
        <translation>包含的帕累托方案数（供运行时选择）：</translation>
    </message>
</context>
<context>
    <name>paretune::TimelineView</name>
    <message>
        <location filename="../widgets/timelineview.cpp" line="+76"/>
        <location line="+38"/>
        <source>transfer</source>
        <translation>传输</translation>
    </message>
    <message>
        <location line="+90"/>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&lt;b&gt;%1&lt;/b&gt; (%2) on %3&lt;br&gt;start %4, end %5, duration %6&lt;br&gt;&lt;i&gt;%7&lt;/i&gt;</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（%2）位于 %3&lt;br&gt;开始 %4，结束 %5，时长 %6&lt;br&gt;&lt;i&gt;%7&lt;/i&gt;</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>No plan selected: search placements and pick a plan on the Pareto front.</source>
        <translation>未选择方案：请搜索放置方案并在帕累托前沿上选择一个方案。</translation>
    </message>
    <message>
        <location line="+83"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>simulated</source>
        <translation>模拟</translation>
    </message>
    <message>
        <location filename="../widgets/planjobs.cpp" line="-16"/>
        <source>%1; measured lanes: validation on this machine, the run of median wall time of %2</source>
        <translation>%1；实测泳道：本机验证，%2 次运行中墙钟时间为中位数的一次</translation>
    </message>
</context>
<context>
    <name>paretune::TrainJob</name>
    <message>
        <location filename="../widgets/trainjob.cpp" line="+32"/>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>training set (in-sample, nothing held out)</source>
        <translation>训练集（样本内，未留出任何数据）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>held out: %1</source>
        <translation>留出：%1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Training cancelled; nothing was stored.</source>
        <translation>训练已取消；未存储任何内容。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Training needs LibTorch, which this build does not include.</source>
        <translation>训练需要 LibTorch，而此构建不包含它。</translation>
    </message>
</context>
<context>
    <name>paretune::TuneController</name>
    <message>
        <location filename="../widgets/tunecontroller.cpp" line="+50"/>
        <source>Search, validate plans along the front and the best baselines on this machine&apos;s devices, learn from what was measured, and search again</source>
        <translation>搜索，在本机设备上验证前沿上的方案和最佳基线，从实测结果中学习，然后再次搜索</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Tuning needs LibTorch, which this build does not include</source>
        <translation>调优需要 LibTorch，而此版本未包含它</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tune</source>
        <translation>调优</translation>
    </message>
    <message>
        <location line="+12"/>
        <location line="+2"/>
        <source>Tuning...</source>
        <translation>正在调优...</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Search: population %1, %2 generations, seed %3, objectives %4. Devices: %5 (catalog %6). Sample library: %7.</source>
        <translation>搜索：种群 %1，%2 代，种子 %3，目标 %4。设备：%5（目录 %6）。样本库：%7。</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Open a model before tuning.</source>
        <translation>请先打开模型再调优。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Tuning on %1: up to %2 rounds, %3 front plans per round and the best baselines, %4 interleaved runs each, into %5</source>
        <translation>在 %1 上调优：最多 %2 轮，每轮 %3 个前沿方案及最佳基线，每个交错运行 %4 次，存入 %5</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Tune cancelled during its first round; nothing was stored</source>
        <translation>调优在第一轮中被取消；未存储任何内容</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Tune cancelled</source>
        <translation>调优已取消</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Claim contradicted by the measurements: plan %1 %2</source>
        <translation>实测推翻了声明：方案 %1 %2</translation>
    </message>
    <message numerus="yes">
        <location line="+8"/>
        <source>Tune %1 after %n round(s): last round&apos;s latency error max %2 %, median %3 %; claims over the baselines: %4 confirmed, %5 contradicted</source>
        <translation>
            <numerusform>调优在 %n 轮后%1：最后一轮延迟误差最大 %2 %，中位数 %3 %；相对基线的声明：%4 条已证实，%5 条被推翻</numerusform>
        </translation>
    </message>
    <message>
        <location line="+3"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>converged</source>
        <translation>已收敛</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Plan %1: claim contradicted by the measurements: %2; %3</source>
        <translation>方案 %1：实测推翻了声明：%2；%3</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Tune round %1%2: %3 plans validated, latency error max %4 %, median %5 %; costs: %6</source>
        <translation>调优第 %1 轮%2：验证了 %3 个方案，延迟误差最大 %4 %，中位数 %5 %；成本：%6</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> (stored)</source>
        <translation>（已存储）</translation>
    </message>
</context>
<context>
    <name>paretune::TuneDialog</name>
    <message>
        <location filename="../widgets/tunedialog.cpp" line="+27"/>
        <source>Tune</source>
        <translation>调优</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Each round searches with the costs learned so far, runs plans along the front and the best baselines on this machine, timed interleaved, and learns from what was measured inside them. Every round is stored in the sample library; the same settings again resume after the stored rounds.</source>
        <translation>每一轮用目前学到的成本进行搜索，在本机上交错计时运行前沿上的方案和最佳基线，并从方案内部的实测结果中学习。每一轮都存入样本库；以相同设置再次运行时会从已存储的轮次之后继续。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Rounds (at most):</source>
        <translation>轮数（最多）：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Front plans validated per round:</source>
        <translation>每轮验证的前沿方案数：</translation>
    </message>
    <message>
        <location line="+4"/>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Where the plans are short, each runs more often, so that a round&apos;s timed runs last this long: the median then carries less of the machine&apos;s wandering speed. 0: exactly the runs above.</source>
        <translation>方案较短时，每个方案会多运行几次，使一轮的计时运行至少持续这么久：中位数受机器速度漂移的影响因而更小。0：恰好运行上面设定的次数。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Timed runs of each plan per round, at least:</source>
        <translation>每轮每个方案的计时运行次数（至少）：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Timed runs last, at least:</source>
        <translation>计时运行至少持续：</translation>
    </message>
</context>
<context>
    <name>paretune::TuneJob</name>
    <message>
        <location filename="../widgets/tunejob.cpp" line="+77"/>
        <source>tuning</source>
        <translation>调优</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The sample library %1 does not exist: profile the model on each device to tune on first (Workflow &gt; Profile).</source>
        <translation>样本库 %1 不存在：请先在每个要调优的设备上剖析模型（工作流 &gt; 剖析）。</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Sample library: %1</source>
        <translation>样本库：%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Devices to tune on (ticked in the Devices dock): %1</source>
        <translation>要调优的设备（在设备面板中勾选）：%1</translation>
    </message>
    <message numerus="yes">
        <location line="+31"/>
        <source>; in-plan times of %n earlier tune round(s) (%1 nodes in context, %2 scaled)</source>
        <translation>
            <numerusform>；前 %n 轮调优中方案内的实测时间（%1 个节点按上下文计时，%2 个按比例缩放）</numerusform>
        </translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Tuning needs LibTorch, which this build does not include.</source>
        <translation>调优需要 LibTorch，而此版本未包含它。</translation>
    </message>
</context>
<context>
    <name>paretune::TunePanel</name>
    <message>
        <location filename="../widgets/tunepanel.cpp" line="+54"/>
        <source>No tune yet: Workflow &gt; Tune searches, validates plans on this machine&apos;s devices and learns from them, round by round.</source>
        <translation>尚未调优：工作流 &gt; 调优会逐轮搜索、在本机设备上验证方案并从中学习。</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>cancelled during round %1 (not stored)</source>
        <translation>在第 %1 轮中被取消（未存储）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>converged: every validated plan&apos;s latency within %1 % of its prediction</source>
        <translation>已收敛：每个验证方案的延迟与其预测相差不超过 %1 %</translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>not converged within %n round(s) (target %1 %)</source>
        <translation>
            <numerusform>%n 轮内未收敛（目标 %1 %）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>Tune on %1: %n round(s), %2 front plans per round and the best baselines, %3 interleaved runs each; %4. Stored in %5.</source>
        <translation>
            <numerusform>在 %1 上调优：%n 轮，每轮 %2 个前沿方案及最佳基线，每个交错运行 %3 次；%4。存储于 %5。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Plan %1: %2</source>
        <translation>方案 %1：%2</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>No plan of the final front claims to beat a baseline.</source>
        <translation>最终前沿上没有方案声称优于某个基线。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>and %1 more confirmed</source>
        <translation>另有 %1 条已证实</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&lt;b&gt;Claims of the final front over the baselines&lt;/b&gt;, checked against the last round&apos;s measurements: %1 confirmed, %2 contradicted, %3 only predicted (not measured)</source>
        <translation>&lt;b&gt;最终前沿相对基线的声明&lt;/b&gt;，以最后一轮的实测结果核对：%1 条已证实，%2 条被推翻，%3 条仅为预测（未测量）</translation>
    </message>
</context>
<context>
    <name>paretune::TuneRoundsModel</name>
    <message>
        <location filename="../widgets/tuneroundsmodel.cpp" line="+35"/>
        <source>library costs only</source>
        <translation>仅样本库成本</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 nodes in context, %2 scaled</source>
        <translation>%1 个节点按上下文计时，%2 个按比例缩放</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 fused groups in context, %2 scaled</source>
        <translation>%1 个融合组按上下文计时，%2 个按比例缩放</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 cells in context drawn toward their nodes on other devices (a time&apos;s noise %2 %, the cells&apos; spread %3 %)</source>
        <translation>%1 个上下文单元向其节点在其他设备上的值收拢（单次时间噪声 %2 %，单元离散度 %3 %）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1 ×%2</source>
        <translation>%1 ×%2</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 beside %2 ×%3</source>
        <translation>%1 与 %2 并行 ×%3</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 +%2 µs a node (measured)</source>
        <translation>%1 每个节点 +%2 µs（实测）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 +%2 µs a turn on shared cores (measured)</source>
        <translation>%1 每次接管共享核心 +%2 µs（实测）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 ×%2 reading a tensor from another device (measured)</source>
        <translation>%1 读取来自其他设备的张量时 ×%2（实测）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 +%2 µs before a turn on shared cores (measured)</source>
        <translation>%1 接管共享核心前 +%2 µs（实测）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>copies into %1 at its turns ×%2 the catalog&apos;s time (measured)</source>
        <translation>接管时复制到 %1 的时间为目录值的 ×%2（实测）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 → %2 handoff %3 µs (catalog %4 µs)</source>
        <translation>%1 → %2 交接 %3 µs（目录 %4 µs）</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>earlier rounds&apos; times at the latest speed: %1</source>
        <translation>前几轮的时间按最新速度折算：%1</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>%1 (stored)</source>
        <translation>%1（已存储）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 (%2 at ×%3 speed)</source>
        <translation>%1（按 ×%3 速度为 %2）</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Round %1: plans validated on this machine</source>
        <translation>第 %1 轮：在本机验证的方案</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Predicted at the machine&apos;s speed measured around the runs: ×%1 the round before&apos;s (baselines in rehearsals before and after: %2 compared, %3 runs each)</source>
        <translation>按运行前后测得的机器速度预测：为上一轮的 ×%1（运行前后预演中的基线：比较 %2 个，每个 %3 次）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>New plans over several devices predicted ×%1: how much longer %2 such plans of earlier rounds measured than predicted</source>
        <translation>跨多个设备的新方案按 ×%1 预测：即前几轮 %2 个此类方案实测比预测长出的倍数</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Timed %1 times: the machine&apos;s speed moved during the runs (kept: %2)</source>
        <translation>计时 %1 次：运行期间机器速度发生变化（保留：%2）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The plans run again from the round before took ×%1 as long (the machine&apos;s speed drifted); at that speed the largest error is %2</source>
        <translation>上一轮的方案重新运行耗时为原来的 ×%1（机器速度发生漂移）；按该速度计，最大误差为 %2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1: predicted %2 ms, measured %3 ms (p10 %4, p90 %5, %6 runs), error %7</source>
        <translation>%1：预测 %2 ms，实测 %3 ms（p10 %4，p90 %5，%6 次运行），误差 %7</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Round</source>
        <translation>轮次</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Plans validated</source>
        <translation>验证的方案</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Max |error|</source>
        <translation>最大 |误差|</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Median |error|</source>
        <translation>中位 |误差|</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Costs the round searched with</source>
        <translation>本轮搜索所用的成本</translation>
    </message>
</context>
<context>
    <name>paretune::ValidateJob</name>
    <message>
        <location filename="../widgets/planjobs.cpp" line="-82"/>
        <source>validating the plan</source>
        <translation>验证方案</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Validation needs LibTorch, which this build does not include.</source>
        <translation>验证需要 LibTorch，此版本未包含。</translation>
    </message>
</context>
<context>
    <name>paretune::WindowLayout</name>
    <message>
        <location filename="../widgets/windowlayout.cpp" line="+104"/>
        <source>&amp;Default layout</source>
        <translation>默认布局(&amp;D)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Show every panel, docked where it starts out</source>
        <translation>显示所有面板，并停靠在初始位置</translation>
    </message>
</context>
<context>
    <name>paretune::WorkbenchLog</name>
    <message>
        <location filename="../widgets/workbenchlog.cpp" line="+29"/>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Paretune</source>
        <translation>Paretune</translation>
    </message>
</context>
<context>
    <name>paretune::WorkspaceController</name>
    <message>
        <location filename="../widgets/workspacecontroller.cpp" line="+66"/>
        <source>Open &amp;workspace...</source>
        <translation>打开工作区(&amp;W)...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Save workspace &amp;as...</source>
        <translation>工作区另存为(&amp;A)...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>S&amp;ettings</source>
        <translation>设置(&amp;E)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>English</source>
        <translation>English</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>The language changes when the workbench restarts.</source>
        <translation>语言将在工作台重新启动后更改。</translation>
    </message>
    <message>
        <location line="+67"/>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Clear the list</source>
        <translation>清除列表</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>Workspace %1</source>
        <translation>工作区 %1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Open a model before saving a workspace.</source>
        <translation>请先打开模型再保存工作区。</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Saved workspace %1</source>
        <translation>已保存工作区 %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Open workspace</source>
        <translation>打开工作区</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+8"/>
        <source>Paretune workspaces (*.paretune)</source>
        <translation>Paretune 工作区 (*.paretune)</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>Save workspace</source>
        <translation>保存工作区</translation>
    </message>
</context>
</TS>
