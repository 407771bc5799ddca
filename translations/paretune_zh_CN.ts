<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>main</name>
    <message>
        <location filename="../app/workbench/main.cpp" line="33"/>
        <source>Place neural-network operators on the devices of this machine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="38"/>
        <source>ONNX model to open</source>
        <translation>要打开的 ONNX 模型</translation>
    </message>
    <message>
        <location filename="../app/workbench/main.cpp" line="41"/>
        <source>Save a picture of the window once the model is shown, then quit.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::MainWindow</name>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="31"/>
        <source>Paretune Workbench</source>
        <translation>Paretune 工作台</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="41"/>
        <source>No model open. Use File &gt; Open to import an ONNX model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="45"/>
        <source>Filter nodes by name, op type, kind or shape</source>
        <translation>按名称、算子类型、类别或形状筛选节点</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="61"/>
        <source>Diagnostics</source>
        <translation>诊断信息</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="66"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="67"/>
        <source>&amp;Open model...</source>
        <translation>打开模型(&amp;O)...</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="69"/>
        <source>Open &amp;sample model</source>
        <translation>打开示例模型(&amp;S)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="71"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="73"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="74"/>
        <source>&amp;About Paretune</source>
        <translation>关于 Paretune(&amp;A)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="78"/>
        <source>Importing %1...</source>
        <translation>正在导入 %1...</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="82"/>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="92"/>
        <source>The bundled sample model is missing from the resources.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="95"/>
        <source>sample.onnx (bundled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="99"/>
        <source>Open ONNX model</source>
        <translation>打开 ONNX 模型</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="100"/>
        <source>ONNX models (*.onnx);;All files (*)</source>
        <translation>ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="121"/>
        <source>&lt;b&gt;%1&lt;/b&gt; &amp;nbsp; opset %2 &amp;nbsp; fingerprint &lt;tt&gt;%3&lt;/tt&gt;&lt;br&gt;Inputs: %4&lt;br&gt;%5 nodes (%6 compute, %7 pass-through, %8 constant, %9 folded shape ops) &amp;nbsp; %10 parameters &amp;nbsp; %11FLOPs &lt;i&gt;(computed from shapes)&lt;/i&gt; &amp;nbsp; %12 unknown shapes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="142"/>
        <source>%1 - Paretune Workbench</source>
        <translation>%1 - Paretune 工作台</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="143"/>
        <source>Imported %1: %2 nodes, %3 warnings</source>
        <translation>已导入 %1：%2 个节点，%3 条警告</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="151"/>
        <source>Import failed</source>
        <translation>导入失败</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="155"/>
        <source>Cannot open model</source>
        <translation>无法打开模型</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="160"/>
        <source>About Paretune</source>
        <translation>关于 Paretune</translation>
    </message>
    <message>
        <location filename="../widgets/mainwindow.cpp" line="161"/>
        <source>&lt;b&gt;Paretune Workbench&lt;/b&gt;&lt;br&gt;Profile, predict and place neural-network operators on the devices of this machine.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::ModelLoader</name>
    <message>
        <location filename="../widgets/modelloader.cpp" line="49"/>
        <source>Internal error while importing %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>paretune::NodeTableModel</name>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="67"/>
        <source> (unknown op)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="99"/>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="101"/>
        <source>Op type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="103"/>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="105"/>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="107"/>
        <source>FLOPs (from shapes)</source>
        <translation>FLOPs（由形状计算）</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="109"/>
        <source>Read</source>
        <translation>读取</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="111"/>
        <source>Written</source>
        <translation>写入</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="113"/>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location filename="../widgets/nodetablemodel.cpp" line="115"/>
        <source>Signature</source>
        <translation>签名</translation>
    </message>
</context>
</TS>
