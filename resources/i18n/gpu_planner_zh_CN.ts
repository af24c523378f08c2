<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AdvisorPane</name>
    <message>
        <source>Price stale after (months)</source>
        <translation>价格过期时间（月）</translation>
    </message>
    <message>
        <source>A price older than this is not taken as the price at the chosen month; the card is left out.</source>
        <translation>早于此时长的价格不会被当作所选月份的价格；该显卡不参与比较。</translation>
    </message>
    <message>
        <source>Sold price preferred within (months)</source>
        <translation>成交价优先的时间范围（月）</translation>
    </message>
    <message>
        <source>A sold price up to this many months older than the newest asking or list price is taken instead: what cards sold for beats what sellers ask.</source>
        <translation>若成交价比最新的要价或标价早不超过这么多个月，则采用成交价：显卡实际卖出的价格比卖家的要价更可信。</translation>
    </message>
    <message>
        <source>Minimum speed-up worth buying (×)</source>
        <translation>值得购买的最低加速比（×）</translation>
    </message>
    <message>
        <source>Below this speed-up over your best card, the advice is to keep it.</source>
        <translation>相对你最好的显卡加速比低于此值时，建议保留现有显卡。</translation>
    </message>
    <message>
        <source>Score factor, legacy software support</source>
        <translation>评分系数：仅旧版软件支持</translation>
    </message>
    <message>
        <source>Score multiplier for cards current software supports only through legacy builds.</source>
        <translation>对当前软件只能通过旧版本支持的显卡所乘的评分系数。</translation>
    </message>
    <message>
        <source>Score factor, no current support</source>
        <translation>评分系数：当前不再支持</translation>
    </message>
    <message>
        <source>Score multiplier for cards current CUDA and PyTorch no longer support.</source>
        <translation>对当前 CUDA 和 PyTorch 已不再支持的显卡所乘的评分系数。</translation>
    </message>
    <message>
        <source>Average load (share of TDP)</source>
        <translation>平均负载（占 TDP 的比例）</translation>
    </message>
    <message>
        <source>The share of its TDP a card draws while training (running cost).</source>
        <translation>显卡训练时消耗其 TDP 的比例（用于运行成本）。</translation>
    </message>
    <message>
        <source>Two-GPU speed-up (×)</source>
        <translation>双卡加速比（×）</translation>
    </message>
    <message>
        <source>How much faster two cards train one network than one (the article: four give 2.5–3.8×).</source>
        <translation>两块显卡训练同一个网络比一块快多少（文章：四块卡为 2.5–3.8 倍）。</translation>
    </message>
    <message>
        <source>Recommendations shown</source>
        <translation>显示的推荐数量</translation>
    </message>
    <message>
        <source>How many cards to buy are listed at most.</source>
        <translation>最多列出多少块建议购买的显卡。</translation>
    </message>
    <message>
        <source>Use case</source>
        <translation>用途</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>使用场景</translation>
    </message>
    <message>
        <source> GB</source>
        <translation> GB</translation>
    </message>
    <message>
        <source>The memory the work needs (without a plan). With your plan, its own estimated peak is used.</source>
        <translation>工作所需的显存（没有方案时）。使用你的方案时，以方案自身估计的峰值为准。</translation>
    </message>
    <message>
        <source>Memory needed</source>
        <translation>所需显存</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>The most the purchase may cost, net of what the replaced card fetches used; 0 = no limit.</source>
        <translation>购买的最高花费（扣除被替换显卡的二手售价）；0 = 不限。</translation>
    </message>
    <message>
        <source>Budget (USD)</source>
        <translation>预算（美元）</translation>
    </message>
    <message>
        <source>1 = speed per dollar, 0 = speed regardless of price.</source>
        <translation>1 = 每美元速度，0 = 只看速度、不计价格。</translation>
    </message>
    <message>
        <source>Price weight</source>
        <translation>价格权重</translation>
    </message>
    <message>
        <source>Several GPUs are an option</source>
        <translation>可以考虑多块 GPU</translation>
    </message>
    <message>
        <source>Also consider two of each card.</source>
        <translation>同时考虑每种显卡各两块。</translation>
    </message>
    <message>
        <source>Reset to the profile&apos;s values</source>
        <translation>恢复为该场景的默认值</translation>
    </message>
    <message>
        <source>Cards you own</source>
        <translation>你拥有的显卡</translation>
    </message>
    <message>
        <source>Search the catalog…</source>
        <translation>搜索显卡目录…</translation>
    </message>
    <message>
        <source>Type part of a name (e.g. 1080 Ti) to find a card.</source>
        <translation>输入名称的一部分（例如 1080 Ti）来查找显卡。</translation>
    </message>
    <message>
        <source>Bought</source>
        <translation>购入</translation>
    </message>
    <message>
        <source>used</source>
        <translation>二手</translation>
    </message>
    <message>
        <source>new</source>
        <translation>全新</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Prices and workload</source>
        <translation>价格与工作负载</translation>
    </message>
    <message>
        <source>new or used, whichever is cheaper</source>
        <translation>全新或二手，取较便宜者</translation>
    </message>
    <message>
        <source>new only</source>
        <translation>仅全新</translation>
    </message>
    <message>
        <source>used only</source>
        <translation>仅二手</translation>
    </message>
    <message>
        <source>Price basis</source>
        <translation>价格依据</translation>
    </message>
    <message>
        <source>The month the prices are taken at: the prices, the cards on sale and their software support as they were then (back to 2012).</source>
        <translation>取价的月份：价格、在售显卡及其软件支持都按当时的情况（最早到 2012 年）。</translation>
    </message>
    <message>
        <source>This month</source>
        <translation>本月</translation>
    </message>
    <message>
        <source>Prices as of</source>
        <translation>价格截至</translation>
    </message>
    <message>
        <source>Use my plan (none drafted)</source>
        <translation>使用我的方案（尚未起草）</translation>
    </message>
    <message>
        <source>Judge fit and speed on the Planner&apos;s network at its batch size and precision instead of the profile&apos;s reference workload.</source>
        <translation>用规划器中的网络（按其批量大小和精度）来判断能否装下和速度，而不是用该场景的参考工作负载。</translation>
    </message>
    <message>
        <source>its estimated peak</source>
        <translation>它的估计峰值</translation>
    </message>
    <message>
        <source>Using your plan: a card qualifies when the plan&apos;s peak (%1, CUDA context included) fits its usable memory; the %2 GB above is not used.</source>
        <translation>使用你的计划：计划的峰值（%1，含 CUDA 上下文）装得进显卡的可用显存，该卡才符合条件；上面的 %2 GB 不使用。</translation>
    </message>
    <message>
        <source>A card qualifies when it has at least this much memory.</source>
        <translation>显存至少有这么多的显卡才符合条件。</translation>
    </message>
    <message>
        <source>Running cost and renting</source>
        <translation>运行成本与租用</translation>
    </message>
    <message>
        <source> /kWh</source>
        <translation> /千瓦时</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>Your electricity price: each card&apos;s power cost per year; 0 = not set.</source>
        <translation>你的电价：每块显卡每年的电费；0 = 未设置。</translation>
    </message>
    <message>
        <source>Electricity</source>
        <translation>电费</translation>
    </message>
    <message>
        <source> h/day</source>
        <translation> 小时/天</translation>
    </message>
    <message>
        <source>Hours a day the card trains (running cost and rent vs buy).</source>
        <translation>显卡每天训练的小时数（用于运行成本和租用与购买的比较）。</translation>
    </message>
    <message>
        <source>Training time</source>
        <translation>训练时间</translation>
    </message>
    <message>
        <source> /hour</source>
        <translation> /小时</translation>
    </message>
    <message>
        <source>dated rental prices</source>
        <translation>按日期的租用价格</translation>
    </message>
    <message>
        <source>Renting instead of buying. At 0 the advisor uses the dated rental prices it knows as of the chosen month (the cheapest and the median per GPU-hour, with the provider and date) for the card or for one that does the same work; type a rate to use your own instead.</source>
        <translation>租用而不购买。设为 0 时，顾问使用所选月份时已知的按日期租用价格（每 GPU 小时的最低价和中位数，附提供商和日期），针对该卡或能完成同样工作的卡；输入费率则改用您自己的费率。</translation>
    </message>
    <message>
        <source>Rent (per GPU-hour)</source>
        <translation>租用（每 GPU 小时）</translation>
    </message>
    <message>
        <source>With your plan, its own peak and speed replace the profile&apos;s memory and workload.</source>
        <translation type="vanished">使用你的计划时，以计划自己的峰值和速度代替方案的显存和工作负载。</translation>
    </message>
    <message>
        <source>As of %1 this profile is judged on %2. (The article, 2017: %3)</source>
        <translation>截至 %1，该使用场景按 %2 评估。（文章，2017 年：%3）</translation>
    </message>
    <message>
        <source>Your rate: $%1 per GPU-hour.</source>
        <translation>您的费率：每 GPU 小时 $%1。</translation>
    </message>
    <message>
        <source>No dated rental price is known as of %1; type a rate to compare renting with buying.</source>
        <translation>截至 %1 没有已知的按日期租用价格；输入费率即可比较租用与购买。</translation>
    </message>
    <message>
        <source>Top pick vs renting %1 (%2): $%3 per GPU-hour at the cheapest (%4), $%5 the median of %6 offers.</source>
        <translation>首选与租用 %1 相比（%2）：最低每 GPU 小时 $%3（%4），%6 个报价的中位数 $%5。</translation>
    </message>
    <message>
        <source>A cloud GPU&apos;s hourly price: how many months until buying pays for itself; 0 = not set.</source>
        <translation type="vanished">云 GPU 的每小时价格：购买要多少个月才能回本；0 = 未设置。</translation>
    </message>
    <message>
        <source>Cloud price</source>
        <translation type="vanished">云端价格</translation>
    </message>
    <message>
        <source>Assumptions</source>
        <translation>假设</translation>
    </message>
    <message>
        <source>Reset to defaults</source>
        <translation>恢复默认值</translation>
    </message>
    <message>
        <source>Use my plan (%1)</source>
        <translation>使用我的方案（%1）</translation>
    </message>
    <message>
        <source>No card named &apos;%1&apos; in the catalog.</source>
        <translation>目录中没有名为“%1”的显卡。</translation>
    </message>
    <message>
        <source>Did you mean %1?</source>
        <translation>你是不是指 %1？</translation>
    </message>
    <message>
        <source>Could not save your cards: %1</source>
        <translation>无法保存你的显卡：%1</translation>
    </message>
    <message>
        <source>unnamed</source>
        <translation>未命名</translation>
    </message>
    <message>
        <source>Assumes: %1.</source>
        <translation>假设：%1。</translation>
    </message>
    <message>
        <source>(Changed from the profile.)</source>
        <translation>（已偏离该场景的默认值。）</translation>
    </message>
    <message>
        <source>The advisor failed: %1</source>
        <translation>顾问出错：%1</translation>
    </message>
    <message>
        <source>No advice</source>
        <translation>暂无建议</translation>
    </message>
    <message>
        <source>%1 — prices as of %2</source>
        <translation>%1 — 价格截至 %2</translation>
    </message>
    <message>
        <source>Detected but not in the catalog (not counted): %1.</source>
        <translation>检测到但不在目录中（不计入）：%1。</translation>
    </message>
    <message>
        <source>No recommendation for these inputs.</source>
        <translation>在这些条件下没有推荐。</translation>
    </message>
    <message>
        <source>Advisor: %1 %2</source>
        <translation>顾问：%1 %2</translation>
    </message>
    <message>
        <source>BUY</source>
        <translation>买入</translation>
    </message>
    <message>
        <source>KEEP</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>SELL</source>
        <translation>卖出</translation>
    </message>
</context>
<context>
    <name>AssumptionsDialog</name>
    <message>
        <source>CUDA context</source>
        <translation>CUDA 上下文</translation>
    </message>
    <message>
        <source>Library handles</source>
        <translation>库句柄</translation>
    </message>
    <message>
        <source>Allocator block</source>
        <translation>分配器块</translation>
    </message>
    <message>
        <source>Allocator large threshold</source>
        <translation>分配器大块阈值</translation>
    </message>
    <message>
        <source>Allocator segment</source>
        <translation>分配器段</translation>
    </message>
    <message>
        <source>Model the caching allocator</source>
        <translation>模拟缓存分配器</translation>
    </message>
    <message>
        <source>Allocator large segment</source>
        <translation>分配器大段</translation>
    </message>
    <message>
        <source>Allocator own-segment threshold</source>
        <translation>分配器独立段阈值</translation>
    </message>
    <message>
        <source>Allocator large rounding</source>
        <translation>分配器大块取整</translation>
    </message>
    <message>
        <source>cuBLAS workspace</source>
        <translation>cuBLAS 工作区</translation>
    </message>
    <message>
        <source>Convolution algorithm</source>
        <translation>卷积算法</translation>
    </message>
    <message>
        <source>Workspace cap</source>
        <translation>工作区上限</translation>
    </message>
    <message>
        <source>Driver reserved</source>
        <translation>驱动保留</translation>
    </message>
    <message>
        <source>Compute efficiency</source>
        <translation>计算效率</translation>
    </message>
    <message>
        <source>Tensor efficiency</source>
        <translation>张量核心效率</translation>
    </message>
    <message>
        <source>Memory efficiency</source>
        <translation>显存效率</translation>
    </message>
    <message>
        <source>Architecture efficiency</source>
        <translation>架构效率</translation>
    </message>
    <message>
        <source>Saturation items per core</source>
        <translation>每核饱和所需输出数</translation>
    </message>
    <message>
        <source>Kernel launch time</source>
        <translation>内核启动时间</translation>
    </message>
    <message>
        <source>Tensor-core architecture efficiency</source>
        <translation>张量核心架构效率</translation>
    </message>
    <message>
        <source>TF32 efficiency</source>
        <translation>TF32 效率</translation>
    </message>
    <message>
        <source>Winograd speed-up</source>
        <translation>Winograd 加速</translation>
    </message>
    <message>
        <source>Grouped convolution efficiency</source>
        <translation>分组卷积效率</translation>
    </message>
    <message>
        <source>Depthwise convolution efficiency</source>
        <translation>深度卷积效率</translation>
    </message>
    <message>
        <source>SM cycles per byte (depthwise)</source>
        <translation>每字节 SM 周期（深度卷积）</translation>
    </message>
    <message>
        <source>16-bit without fast FP16</source>
        <translation>无快速 FP16 时的 16 位</translation>
    </message>
    <message>
        <source>Shared FP32/INT32 datapath efficiency</source>
        <translation>FP32/INT32 共用数据通路效率</translation>
    </message>
    <message>
        <source>CPU time per operator</source>
        <translation>每个算子的 CPU 时间</translation>
    </message>
    <message>
        <source>Input pipeline (GB/s)</source>
        <translation>输入流水线（GB/s）</translation>
    </message>
    <message>
        <source>Narrow GEMM tile efficiency</source>
        <translation>窄 GEMM 分块效率</translation>
    </message>
    <message>
        <source>SM cycles per element (memory-bound)</source>
        <translation>每元素 SM 周期（受内存带宽限制的内核）</translation>
    </message>
    <message>
        <source>Power-limited clock exponent</source>
        <translation>功耗限制时钟指数</translation>
    </message>
    <message>
        <source>Streaming bandwidth share</source>
        <translation>流式带宽占比</translation>
    </message>
    <message>
        <source>Convolution memory format</source>
        <translation>卷积内存布局</translation>
    </message>
    <message>
        <source>Batch norm fuses ReLU and add</source>
        <translation>批归一化融合 ReLU 与加法</translation>
    </message>
    <message>
        <source>Eager attention: passes over the scores</source>
        <translation>非融合注意力：对分数的读写遍数</translation>
    </message>
    <message>
        <source>Optimizer step as a per-tensor loop</source>
        <translation>优化器步骤为逐张量循环</translation>
    </message>
    <message>
        <source>Estimate assumptions</source>
        <translation>估算假设</translation>
    </message>
    <message>
        <source>Every figure the estimate takes on trust. Hover a field for what it means; changes apply to every plan.</source>
        <translation>估算中所有凭经验取定的数值。将鼠标悬停在字段上可查看含义；更改对所有方案生效。</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Speed model</source>
        <translation>速度模型</translation>
    </message>
</context>
<context>
    <name>BreakdownBar</name>
    <message>
        <source>The terms are what is alive at the peak of the simulated step. Below them: what tensors occupy at the peak (torch.cuda.max_memory_allocated), what PyTorch&apos;s caching allocator holds (max_memory_reserved; simulated from its documented behaviour, not measured), and what nvidia-smi shows (that plus the CUDA context and libraries). The allocator gives back cached blocks and retries before it runs out of memory, so fit is judged on the tensors plus the context.</source>
        <translation>各项是模拟训练步骤峰值时刻仍存活的内存。其下依次为：峰值时张量占用的内存（torch.cuda.max_memory_allocated）、PyTorch 缓存分配器持有的内存（max_memory_reserved；按其文档行为模拟，未经实测），以及 nvidia-smi 显示的内存（再加上 CUDA 上下文和库）。分配器在内存不足前会归还缓存块并重试，因此是否装得下按张量加上下文来判断。</translation>
    </message>
    <message>
        <source>No estimate</source>
        <translation>暂无估算</translation>
    </message>
    <message>
        <source>Per GPU %1</source>
        <translation>每块 GPU %1</translation>
    </message>
    <message>
        <source>Peak %1</source>
        <translation>峰值 %1</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>批量 %1</translation>
    </message>
    <message>
        <source>at %1 (%2)</source>
        <translation>位于 %1（%2）</translation>
    </message>
    <message>
        <source>at the %1</source>
        <translation>位于%1</translation>
    </message>
    <message>
        <source>%1 GPUs, %2, batch %3 each, global %4</source>
        <translation>%1 块 GPU，%2，每块批量 %3，全局 %4</translation>
    </message>
    <message>
        <source>of %1</source>
        <translation>共 %1</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>装得下</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>装不下</translation>
    </message>
    <message>
        <source>tensors %1 · allocator holds %2 (simulated) · nvidia-smi %3</source>
        <translation>张量 %1 · 分配器持有 %2（模拟）· nvidia-smi %3</translation>
    </message>
</context>
<context>
    <name>CatalogPane</name>
    <message>
        <source>Import prices</source>
        <translation>导入价格</translation>
    </message>
    <message>
        <source>Export the price history</source>
        <translation>导出价格历史</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Search name, architecture, chip…</source>
        <translation>搜索名称、架构、芯片…</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>any</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Mine only</source>
        <translation>仅我的</translation>
    </message>
    <message>
        <source>Architecture:</source>
        <translation>架构：</translation>
    </message>
    <message>
        <source>Segment:</source>
        <translation>细分市场：</translation>
    </message>
    <message>
        <source>Memory at least:</source>
        <translation>显存至少：</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Select two to four cards to compare them side by side</source>
        <translation>选择两到四块显卡并排比较</translation>
    </message>
    <message>
        <source>Edit price…</source>
        <translation>编辑价格…</translation>
    </message>
    <message>
        <source>Add custom card…</source>
        <translation>添加自定义显卡…</translation>
    </message>
    <message>
        <source>Mark as mine</source>
        <translation>标记为我的</translation>
    </message>
    <message>
        <source>Mine (bought new)</source>
        <translation>我的（全新购入）</translation>
    </message>
    <message>
        <source>Mine (bought used)</source>
        <translation>我的（二手购入）</translation>
    </message>
    <message>
        <source>Not mine</source>
        <translation>不是我的</translation>
    </message>
    <message>
        <source>Prices</source>
        <translation>价格</translation>
    </message>
    <message>
        <source>Your own prices (a CSV with the columns card, date, amount, currency, condition, kind, source) and the merged price history</source>
        <translation>您自己的价格（含 card、date、amount、currency、condition、kind、source 列的 CSV）以及合并后的价格历史</translation>
    </message>
    <message>
        <source>Import prices…</source>
        <translation>导入价格…</translation>
    </message>
    <message>
        <source>Export the price history…</source>
        <translation>导出价格历史…</translation>
    </message>
    <message>
        <source>Remove my imported prices</source>
        <translation type="vanished">删除我导入的价格</translation>
    </message>
    <message>
        <source>Chart</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Table</source>
        <translation>表格</translation>
    </message>
    <message>
        <source>Price history</source>
        <translation>价格历史</translation>
    </message>
    <message>
        <source>Select two to four cards to compare.</source>
        <translation>请选择两到四块显卡进行比较。</translation>
    </message>
    <message>
        <source>Could not save the price: %1</source>
        <translation>无法保存价格：%1</translation>
    </message>
    <message>
        <source>Saved your price for %1: $%2 %3 (%4).</source>
        <translation>已保存你给 %1 的价格：$%2 %3（%4）。</translation>
    </message>
    <message>
        <source>Could not import the prices: %1</source>
        <translation>无法导入价格：%1</translation>
    </message>
    <message>
        <source>Imported %1 prices (%2 already known).</source>
        <translation>已导入 %1 条价格（%2 条已存在）。</translation>
    </message>
    <message>
        <source>Rows not imported: %1; the first: %2</source>
        <translation>未导入的行：%1；第一条：%2</translation>
    </message>
    <message>
        <source>Removed %1 of your prices (%2 imported, %3 entered).</source>
        <translation>已删除您的 %1 条价格（导入 %2 条，输入 %3 条）。</translation>
    </message>
    <message>
        <source>Price rows not used (they name no single catalog card): %1.</source>
        <translation>未使用的价格行（未对应到唯一的目录显卡）：%1。</translation>
    </message>
    <message>
        <source>Could not export the prices: %1</source>
        <translation>无法导出价格：%1</translation>
    </message>
    <message>
        <source>Remove my prices</source>
        <translation>删除我的价格</translation>
    </message>
    <message>
        <source>Delete the prices you imported or entered; the shipped history stays</source>
        <translation>删除您导入或输入的价格；内置的价格历史保留</translation>
    </message>
    <message>
        <source>Wrote %1 prices to %2.</source>
        <translation>已将 %1 条价格写入 %2。</translation>
    </message>
    <message>
        <source>Could not remove your prices: %1</source>
        <translation>无法删除您的价格：%1</translation>
    </message>
    <message>
        <source>Removed %1 of your imported prices.</source>
        <translation type="vanished">已删除 %1 条您导入的价格。</translation>
    </message>
    <message>
        <source>Could not save the card: %1</source>
        <translation>无法保存显卡：%1</translation>
    </message>
    <message>
        <source>Added your card %1.</source>
        <translation>已添加你的显卡 %1。</translation>
    </message>
    <message>
        <source>Marked as yours: %1.</source>
        <translation>已标记为你的：%1。</translation>
    </message>
    <message>
        <source>No longer marked as yours: %1.</source>
        <translation>不再标记为你的：%1。</translation>
    </message>
    <message>
        <source>Select a card to see its details.</source>
        <translation>选择一块显卡查看详情。</translation>
    </message>
    <message>
        <source>Yours (bought %1)</source>
        <translation>你的（%1购入）</translation>
    </message>
    <message>
        <source>a card you added</source>
        <translation>你添加的显卡</translation>
    </message>
    <message>
        <source>Software support</source>
        <translation>软件支持</translation>
    </message>
    <message>
        <source>Also called</source>
        <translation>别名</translation>
    </message>
    <message>
        <source>Names NVML reports</source>
        <translation>NVML 报告的名称</translation>
    </message>
    <message>
        <source>Variant of</source>
        <translation>变体来源</translation>
    </message>
    <message>
        <source>Quirks</source>
        <translation>特殊之处</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>gpu-planner catalog --price-coverage lists them all.</source>
        <translation>gpu-planner catalog --price-coverage 会列出全部。</translation>
    </message>
    <message>
        <source>About your catalog data:</source>
        <translation>关于你的目录数据：</translation>
    </message>
    <message>
        <source>Could not save your cards: %1</source>
        <translation>无法保存你的显卡：%1</translation>
    </message>
    <message>
        <source>%1 of %2 cards</source>
        <translation>%1 / %2 块显卡</translation>
    </message>
</context>
<context>
    <name>CatalogTableModel</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>CC</source>
        <translation>算力</translation>
    </message>
    <message>
        <source>Memory
(GiB)</source>
        <translation>显存
(GiB)</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Bus
(bit)</source>
        <translation>位宽
(bit)</translation>
    </message>
    <message>
        <source>Bandwidth
(GB/s)</source>
        <translation>带宽
(GB/s)</translation>
    </message>
    <message>
        <source>FP32
TFLOPS</source>
        <translation>FP32
TFLOPS</translation>
    </message>
    <message>
        <source>FP16 tensor
TFLOPS</source>
        <translation>FP16 张量
TFLOPS</translation>
    </message>
    <message>
        <source>TDP
(W)</source>
        <translation>TDP
(W)</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>发布</translation>
    </message>
    <message>
        <source>Launch
price</source>
        <translation>首发
价格</translation>
    </message>
    <message>
        <source>Latest new
price</source>
        <translation>最新
全新价</translation>
    </message>
    <message>
        <source>Latest used
price</source>
        <translation>最新
二手价</translation>
    </message>
    <message>
        <source>Software
support</source>
        <translation>软件
支持</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <source>Memory type</source>
        <translation>显存类型</translation>
    </message>
    <message>
        <source>Memory bus width</source>
        <translation>显存位宽</translation>
    </message>
    <message>
        <source>Memory bandwidth</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <source>FP32 throughput</source>
        <translation>FP32 算力</translation>
    </message>
    <message>
        <source>Dense FP16 tensor-core throughput</source>
        <translation>稠密 FP16 张量核心算力</translation>
    </message>
    <message>
        <source>Board power</source>
        <translation>板卡功耗</translation>
    </message>
    <message>
        <source>Release month</source>
        <translation>发布月份</translation>
    </message>
    <message>
        <source>Launch price (MSRP)</source>
        <translation>首发价格（MSRP）</translation>
    </message>
    <message>
        <source>The latest new price known, with its month</source>
        <translation>已知的最新全新价格及其月份</translation>
    </message>
    <message>
        <source>The latest used price known, with its month</source>
        <translation>已知的最新二手价格及其月份</translation>
    </message>
    <message>
        <source>Compute capability against current CUDA, cuDNN and PyTorch builds</source>
        <translation>计算能力与当前 CUDA、cuDNN 和 PyTorch 版本的对照</translation>
    </message>
    <message>
        <source>(custom)</source>
        <translation>（自定义）</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>来源：%1</translation>
    </message>
</context>
<context>
    <name>ClassicTableModel</name>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Activation + error</source>
        <translation>激活 + 误差</translation>
    </message>
    <message>
        <source>Article&apos;s arithmetic</source>
        <translation>文章中的算法</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>说明</translation>
    </message>
</context>
<context>
    <name>ClusterDialog</name>
    <message>
        <source>Watch a cluster</source>
        <translation>监视集群</translation>
    </message>
    <message>
        <source>A Prometheus server that scrapes NVIDIA&apos;s dcgm-exporter on each node. Only its HTTP query API is used.</source>
        <translation>一个抓取各节点上 NVIDIA dcgm-exporter 数据的 Prometheus 服务器。只使用它的 HTTP 查询 API。</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>可选</translation>
    </message>
    <message>
        <source>Remember token (stored in the settings file in clear text)</source>
        <translation>记住令牌（以明文保存在设置文件中）</translation>
    </message>
    <message>
        <source>system certificates</source>
        <translation>系统证书</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Don&apos;t verify TLS certificates</source>
        <translation>不验证 TLS 证书</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>At most one query per this many seconds; the monitor samples no faster</source>
        <translation>每隔这么多秒最多查询一次；监视器的采样不会比这更快</translation>
    </message>
    <message>
        <source>Server URL:</source>
        <translation>服务器 URL：</translation>
    </message>
    <message>
        <source>Bearer token:</source>
        <translation>Bearer 令牌：</translation>
    </message>
    <message>
        <source>CA file:</source>
        <translation>CA 文件：</translation>
    </message>
    <message>
        <source>Query every:</source>
        <translation>查询间隔：</translation>
    </message>
    <message>
        <source>Watch</source>
        <translation>监视</translation>
    </message>
    <message>
        <source>CA certificate</source>
        <translation>CA 证书</translation>
    </message>
    <message>
        <source>Certificates (*.pem *.crt *.cer);;All files (*)</source>
        <translation>证书 (*.pem *.crt *.cer);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Server URL: %1</source>
        <translation>服务器 URL：%1</translation>
    </message>
    <message>
        <source>Server URL: {problem}</source>
        <translation type="vanished">服务器 URL：{problem}</translation>
    </message>
</context>
<context>
    <name>CompareDialog</name>
    <message>
        <source>Compare cards</source>
        <translation>比较显卡</translation>
    </message>
    <message>
        <source>Highlighted rows: the cards differ there.</source>
        <translation>高亮行：这些显卡在此处不同。</translation>
    </message>
</context>
<context>
    <name>CompareTableModel</name>
    <message>
        <source>The compared cards differ here</source>
        <translation>所比较的显卡在此处不同</translation>
    </message>
</context>
<context>
    <name>CustomCardDialog</name>
    <message>
        <source>Add custom card</source>
        <translation>添加自定义显卡</translation>
    </message>
    <message>
        <source>e.g. My RTX 4090 (modded 48 GB)</source>
        <translation>例如 My RTX 4090（改装 48 GB）</translation>
    </message>
    <message>
        <source>not given</source>
        <translation>未提供</translation>
    </message>
    <message>
        <source>has tensor cores</source>
        <translation>有张量核心</translation>
    </message>
    <message>
        <source>your own card</source>
        <translation>你自己的显卡</translation>
    </message>
    <message>
        <source>Required</source>
        <translation>必填</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Architecture:</source>
        <translation>架构：</translation>
    </message>
    <message>
        <source>Segment:</source>
        <translation>细分市场：</translation>
    </message>
    <message>
        <source>Compute capability:</source>
        <translation>计算能力：</translation>
    </message>
    <message>
        <source>Memory:</source>
        <translation>显存：</translation>
    </message>
    <message>
        <source>Bandwidth:</source>
        <translation>带宽：</translation>
    </message>
    <message>
        <source>FP32:</source>
        <translation>FP32：</translation>
    </message>
    <message>
        <source>Optional (0 = not given)</source>
        <translation>可选（0 = 未提供）</translation>
    </message>
    <message>
        <source>Memory type:</source>
        <translation>显存类型：</translation>
    </message>
    <message>
        <source>Bus width:</source>
        <translation>位宽：</translation>
    </message>
    <message>
        <source>FP16 tensor:</source>
        <translation>FP16 张量：</translation>
    </message>
    <message>
        <source>TDP:</source>
        <translation>TDP：</translation>
    </message>
    <message>
        <source>Launch price:</source>
        <translation>首发价格：</translation>
    </message>
    <message>
        <source>Release:</source>
        <translation>发布：</translation>
    </message>
    <message>
        <source>Notes:</source>
        <translation>备注：</translation>
    </message>
    <message>
        <source>Source:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <source>A built-in card is already called %1; choose another name.</source>
        <translation>已有内置显卡名为 %1；请换一个名称。</translation>
    </message>
</context>
<context>
    <name>FitScatter</name>
    <message>
        <source>price (USD, log scale)</source>
        <translation>价格（美元，对数刻度）</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>装得下</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>装不下</translation>
    </message>
    <message>
        <source>yours</source>
        <translation>你的</translation>
    </message>
</context>
<context>
    <name>FitTableModel</name>
    <message>
        <source>Card</source>
        <translation>显卡</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>装得下</translation>
    </message>
    <message>
        <source>Headroom</source>
        <translation>余量</translation>
    </message>
    <message>
        <source>Max batch</source>
        <translation>最大批量</translation>
    </message>
    <message>
        <source>ms / iter</source>
        <translation>毫秒/迭代</translation>
    </message>
    <message>
        <source>Samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>Relative</source>
        <translation>相对速度</translation>
    </message>
    <message>
        <source>Price new</source>
        <translation>全新价</translation>
    </message>
    <message>
        <source>Price used</source>
        <translation>二手价</translation>
    </message>
    <message>
        <source>Samples/s per $</source>
        <translation>每美元样本/秒</translation>
    </message>
    <message>
        <source>Software</source>
        <translation>软件</translation>
    </message>
    <message>
        <source>The card; %1 marks the cards you own</source>
        <translation>显卡；%1 标出你拥有的显卡</translation>
    </message>
    <message>
        <source>The card&apos;s memory (GiB)</source>
        <translation>显卡的显存（GiB）</translation>
    </message>
    <message>
        <source>Whether the estimated peak fits the usable memory: total less what the driver and CUDA context reserve</source>
        <translation>估计的峰值能否装进可用显存：总量减去驱动和 CUDA 上下文保留的部分</translation>
    </message>
    <message>
        <source>Usable memory left over at this batch size (negative: short by that much)</source>
        <translation>该批量大小下剩余的可用显存（负数：还差这么多）</translation>
    </message>
    <message>
        <source>The largest batch that fits on this card</source>
        <translation>这块显卡上能装下的最大批量</translation>
    </message>
    <message>
        <source>Estimated time of one iteration at this batch size (roofline model)</source>
        <translation>该批量大小下一次迭代的估计时间（屋顶线模型）</translation>
    </message>
    <message>
        <source>Samples per second at this batch size</source>
        <translation>该批量大小下每秒处理的样本数</translation>
    </message>
    <message>
        <source>Speed relative to the reference card (1.00× = as fast)</source>
        <translation>相对参考显卡的速度（1.00× = 一样快）</translation>
    </message>
    <message>
        <source>The latest new price on or before the chosen month</source>
        <translation>所选月份当月或之前的最新全新价格</translation>
    </message>
    <message>
        <source>The latest used price on or before the chosen month</source>
        <translation>所选月份当月或之前的最新二手价格</translation>
    </message>
    <message>
        <source>Samples per second per dollar of the cheaper of the new and used price</source>
        <translation>按全新价与二手价中较便宜者计算的每美元每秒样本数</translation>
    </message>
    <message>
        <source>Compute capability against what current CUDA, cuDNN and PyTorch builds support</source>
        <translation>计算能力与当前 CUDA、cuDNN 和 PyTorch 版本支持情况的对照</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>Tokens/s per $</source>
        <translation>每美元词元/秒</translation>
    </message>
    <message>
        <source>Tokens per second at this batch size (samples per second × %1 tokens a sequence)</source>
        <translation>此批量下每秒处理的词元数（每秒样本数 × 每个序列 %1 个词元）</translation>
    </message>
    <message>
        <source>Tokens per second per dollar of the cheaper of the new and used price</source>
        <translation>每美元（新品与二手中较便宜的价格）每秒词元数</translation>
    </message>
    <message>
        <source>One of your cards</source>
        <translation>你的一块显卡</translation>
    </message>
    <message>
        <source>A card you added</source>
        <translation>你添加的一块显卡</translation>
    </message>
    <message>
        <source>peak %1 of %2 usable</source>
        <translation>峰值 %1，可用 %2</translation>
    </message>
    <message>
        <source>Does not fit at this batch size: the speed it would have if it did</source>
        <translation>该批量大小下装不下：这是能装下时的速度</translation>
    </message>
    <message>
        <source>Error band %1: how far measured training throughput was from this model&apos;s figure on %2 benchmark rows of cards of compute capability %3 in %4</source>
        <translation>误差带 %1：在计算能力 %3 的显卡上以 %4 精度测得的 %2 条基准记录中，实测训练吞吐量与本模型估算值的偏差范围</translation>
    </message>
    <message>
        <source>Expected error %1: the speed model&apos;s typical error against measured training throughput</source>
        <translation type="vanished">预期误差 %1：速度模型相对实测训练吞吐量的典型误差</translation>
    </message>
    <message>
        <source>%1 divided by %2</source>
        <translation>%1 除以 %2</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>samples/s divided by %1</source>
        <translation type="vanished">样本/秒除以 %1</translation>
    </message>
    <message>
        <source>no price known</source>
        <translation>价格未知</translation>
    </message>
    <message>
        <source>Not even a batch of 1 fits</source>
        <translation>连批量 1 都装不下</translation>
    </message>
</context>
<context>
    <name>FitView</name>
    <message>
        <source>new</source>
        <translation>全新</translation>
    </message>
    <message>
        <source>used</source>
        <translation>二手</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>成色不一</translation>
    </message>
    <message>
        <source>launch</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>asking</source>
        <translation>要价</translation>
    </message>
    <message>
        <source>Fits only</source>
        <translation>只显示装得下的</translation>
    </message>
    <message>
        <source>Hide the cards the plan does not fit on</source>
        <translation>隐藏装不下该方案的显卡</translation>
    </message>
    <message>
        <source>any</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Highest price (the cheaper of new and used); 0 = any. Cards without a price are hidden while a budget is set.</source>
        <translation>最高价格（全新与二手中较便宜者）；0 = 不限。设置预算时，没有价格的显卡会被隐藏。</translation>
    </message>
    <message>
        <source>Relative speed is measured against this card</source>
        <translation>相对速度以这块显卡为基准</translation>
    </message>
    <message>
        <source>Prices as they were in this month (the latest known price on or before it)</source>
        <translation>按该月的价格（当月或之前已知的最新价格）</translation>
    </message>
    <message>
        <source>Budget:</source>
        <translation>预算：</translation>
    </message>
    <message>
        <source>Architecture:</source>
        <translation>架构：</translation>
    </message>
    <message>
        <source>Segment:</source>
        <translation>细分市场：</translation>
    </message>
    <message>
        <source>Relative to:</source>
        <translation>相对于：</translation>
    </message>
    <message>
        <source>Prices as of:</source>
        <translation>价格截至：</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>memory (GiB)</source>
        <translation>显存（GiB）</translation>
    </message>
    <message>
        <source>No plan yet.</source>
        <translation>还没有方案。</translation>
    </message>
    <message>
        <source>Nothing to estimate yet: the plan has no layers.</source>
        <translation>还没有可估计的内容：方案中没有层。</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>…… 还有 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <source>Fix the plan&apos;s errors to see how it fits on each card.</source>
        <translation>修正方案中的错误后，才能看到它在每块显卡上是否装得下。</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>latest</source>
        <translation>最新</translation>
    </message>
    <message>
        <source>%1 of %2 cards shown; the plan fits on %3.</source>
        <translation>显示 %1 / %2 块显卡；方案可装进其中 %3 块。</translation>
    </message>
    <message>
        <source>Peak %1 at batch %2, %3, %4.</source>
        <translation>峰值 %1，批量 %2，%3，%4。</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>Speeds relative to %1, each with the error band measured for its kind of card and precision; prices %2.</source>
        <translation>速度相对于 %1，各附其显卡类型与精度下实测的误差带；价格%2。</translation>
    </message>
    <message>
        <source>Speeds relative to %1 (typically within %3 of measured training throughput); prices %2.</source>
        <translation type="vanished">速度相对于 %1（与实测训练吞吐量的差距通常在 %3 以内）；价格%2。</translation>
    </message>
    <message>
        <source>Speeds relative to %1; prices %2.</source>
        <translation type="vanished">速度相对于 %1；价格%2。</translation>
    </message>
    <message>
        <source>as of %1</source>
        <translation>截至 %1</translation>
    </message>
    <message>
        <source>latest known</source>
        <translation>为已知最新</translation>
    </message>
    <message>
        <source>Each row is %1 GPUs of that card (%2): the peak is per GPU, the speed that of all of them.</source>
        <translation>每一行是该显卡的 %1 块 GPU（%2）：峰值按每块 GPU 计，速度为全部 GPU 合计。</translation>
    </message>
    <message>
        <source>fits, largest batch %1</source>
        <translation>装得下，最大批量 %1</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>装不下</translation>
    </message>
    <message numerus="yes">
        <source>(%n card(s) without a price not shown)</source>
        <translation>
            <numerusform>（%n 块没有价格的显卡未显示）</numerusform>
        </translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>Tokens/s against price</source>
        <translation>词元/秒与价格</translation>
    </message>
    <message>
        <source>Samples/s against price</source>
        <translation>样本/秒与价格</translation>
    </message>
    <message>
        <source>Memory against price</source>
        <translation>显存与价格</translation>
    </message>
</context>
<context>
    <name>GpuTableModel</name>
    <message>
        <source>Card</source>
        <translation>显卡</translation>
    </message>
    <message>
        <source>NVML index and name</source>
        <translation>NVML 序号和名称</translation>
    </message>
    <message>
        <source>Memory in use
/ total</source>
        <translation>已用显存
/ 总量</translation>
    </message>
    <message>
        <source>Memory in use (allocated on the card), as nvidia-smi shows it</source>
        <translation>已用显存（已在显卡上分配），与 nvidia-smi 显示的一致</translation>
    </message>
    <message>
        <source>Memory
in use %</source>
        <translation>显存
使用率 %</translation>
    </message>
    <message>
        <source>Memory in use ÷ total memory</source>
        <translation>已用显存 ÷ 总显存</translation>
    </message>
    <message>
        <source>Memory-controller
busy %</source>
        <translation>显存控制器
繁忙 %</translation>
    </message>
    <message>
        <source>Share of time the memory controller was reading or writing (NVML &apos;memory utilisation&apos;). Not the memory in use.</source>
        <translation>显存控制器读写所占的时间比例（NVML 的“memory utilisation”）。不是已用显存。</translation>
    </message>
    <message>
        <source>Bandwidth
GB/s (est.)</source>
        <translation>带宽
GB/s（估计）</translation>
    </message>
    <message>
        <source>An ESTIMATE: memory-controller busy % × the card&apos;s peak bandwidth</source>
        <translation>估计值：显存控制器繁忙 % × 显卡峰值带宽</translation>
    </message>
    <message>
        <source>DRAM bandwidth
% (GPM)</source>
        <translation>DRAM 带宽
%（GPM）</translation>
    </message>
    <message>
        <source>Measured DRAM bandwidth utilisation (GPM metrics, Hopper and newer)</source>
        <translation>实测 DRAM 带宽利用率（GPM 指标，Hopper 及更新架构）</translation>
    </message>
    <message>
        <source>GPU
busy %</source>
        <translation>GPU
繁忙 %</translation>
    </message>
    <message>
        <source>Share of time a kernel was running on the GPU</source>
        <translation>GPU 上有内核在运行的时间比例</translation>
    </message>
    <message>
        <source>SM / memory
clock</source>
        <translation>SM / 显存
频率</translation>
    </message>
    <message>
        <source>Current clocks in MHz</source>
        <translation>当前频率（MHz）</translation>
    </message>
    <message>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <source>Power draw in watts</source>
        <translation>功耗（瓦）</translation>
    </message>
    <message>
        <source>Temp.</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>GPU temperature in °C</source>
        <translation>GPU 温度（°C）</translation>
    </message>
    <message>
        <source>Fan</source>
        <translation>风扇</translation>
    </message>
    <message>
        <source>Fan speed, % of maximum</source>
        <translation>风扇转速，占最大值的 %</translation>
    </message>
    <message>
        <source>Throttle
reasons</source>
        <translation>降频
原因</translation>
    </message>
    <message>
        <source>Why the clocks are held below their maximum</source>
        <translation>频率低于最大值的原因</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>ok; lost when the card (or its host) stopped answering; no answer when the telemetry server did not answer</source>
        <translation>正常；显卡（或其主机）停止响应时为“丢失”；遥测服务器未响应时为“无响应”</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>The machine the card is in (cards are grouped by host)</source>
        <translation>显卡所在的机器（显卡按主机分组）</translation>
    </message>
    <message>
        <source>peak bandwidth %1 GB/s</source>
        <translation>峰值带宽 %1 GB/s</translation>
    </message>
    <message>
        <source>estimate: %1% busy × %2 GB/s peak</source>
        <translation>估计：繁忙 %1% × 峰值 %2 GB/s</translation>
    </message>
    <message>
        <source>limit %1 W</source>
        <translation>上限 %1 W</translation>
    </message>
    <message>
        <source>ok, or lost when the card stopped answering</source>
        <translation type="vanished">正常；显卡停止响应时为“丢失”</translation>
    </message>
    <message>
        <source>no sample yet</source>
        <translation>尚无采样</translation>
    </message>
    <message>
        <source>the card is lost</source>
        <translation>显卡已丢失</translation>
    </message>
    <message>
        <source>not reported by this card</source>
        <translation>这块显卡不报告此项</translation>
    </message>
    <message>
        <source>peak bandwidth {bw:.0f} GB/s</source>
        <translation type="vanished">峰值带宽 {bw:.0f} GB/s</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>丢失</translation>
    </message>
    <message>
        <source>the card stopped answering</source>
        <translation>显卡停止响应</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>无响应</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>estimate: {busy:.0f}% busy × {peak:.0f} GB/s peak</source>
        <translation type="vanished">估计：繁忙 {busy:.0f}% × 峰值 {peak:.0f} GB/s</translation>
    </message>
    <message>
        <source>measured (GPM)</source>
        <translation>实测（GPM）</translation>
    </message>
    <message>
        <source>limit {w:.0f} W</source>
        <translation type="vanished">上限 {w:.0f} W</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>GuideDialog</name>
    <message>
        <source>GPU Planner — user guide</source>
        <translation>GPU Planner — 使用指南</translation>
    </message>
</context>
<context>
    <name>ImportSummary</name>
    <message>
        <source>Part of the network could not be planned at all: memory and speed are too low by what that part needs.</source>
        <translation>网络有一部分完全无法规划：内存和速度偏低，差的就是这部分所需。</translation>
    </message>
    <message>
        <source>Operations the planner does not know were counted as passing their input through unchanged: what they keep for backward is a guess, so memory may be somewhat low around them.</source>
        <translation>规划器不认识的运算按原样传递输入计算：它们为反向传播保留的内容是猜测，因此这些位置的内存可能略低。</translation>
    </message>
    <message>
        <source>The imported plan has errors: no estimate until they are fixed in the layer table.</source>
        <translation>导入的计划有错误：在层表中修正之前没有估算。</translation>
    </message>
    <message>
        <source>The file lost its exporter&apos;s metadata, which says where batch norms were folded into convolutions: if the network has batch norms, they are missing from the plan and memory is much too low. Open the file as exported.</source>
        <translation>文件丢失了导出器的元数据，而元数据说明了批归一化被折叠进哪些卷积：如果网络含批归一化，它们不在方案中，内存会低得多。请打开原始导出的文件。</translation>
    </message>
    <message>
        <source>The file was saved for inference: the plan puts the batch norms back for training, but dropout is missing, so training memory is a little higher than shown.</source>
        <translation>该文件是为推理保存的：计划为训练补回了批归一化，但缺少 dropout，因此训练内存比显示的略高。</translation>
    </message>
    <message>
        <source>The network has attention but the file has no dropout: it may have been exported for inference, and training also keeps what dropout keeps (2-22 % more activation memory on BERT and GPT-2). Export with model.train() for training figures.</source>
        <translation type="vanished">网络含有注意力，但文件中没有 dropout：它可能是为推理导出的，而训练还会保存 dropout 所保存的张量（在 BERT 和 GPT-2 上激活内存多 2-22 %）。要得到训练的数字，请用 model.train() 导出。</translation>
    </message>
    <message>
        <source>The network has attention but the file has no dropout: it may have been exported for inference, and training also keeps what dropout keeps (2-31 % more activation memory on BERT, GPT-2 and nn.TransformerEncoder). Export with model.train() for training figures.</source>
        <translation>网络含有注意力，但文件中没有 dropout：它可能是为推理导出的，而训练还会保存 dropout 所保存的张量（在 BERT、GPT-2 和 nn.TransformerEncoder 上激活内存多 2-31 %）。要得到训练的数字，请用 model.train() 导出。</translation>
    </message>
    <message>
        <source>The file does not say whether this decoder copies keys and values into a key/value cache, as Hugging Face models do by default, also in training: if it does, attention keeps more than shown (the details say how much). Train with use_cache=False, or open a file with its exporter&apos;s metadata, for exact figures.</source>
        <translation>文件没有说明此解码器是否把键和值复制进键/值缓存（Hugging Face 模型默认如此，训练时也是）：如果是，注意力保留的内容比显示的多（详情中给出多少）。训练时设置 use_cache=False，或打开保留导出器元数据的文件，可得到精确数字。</translation>
    </message>
    <message>
        <source>The file fixes its shapes, or the plan&apos;s shapes differ from the file&apos;s in places: check the layers whose output shape looks wrong.</source>
        <translation>文件固定了形状，或计划的形状在某些位置与文件不同：请检查输出形状看起来不对的层。</translation>
    </message>
    <message>
        <source>Attention adds a position bias to its scores: the plan assumes the fused kernel CUDA runs for it. Where the math kernel runs instead, activation memory is higher by the figure the details give.</source>
        <translation>注意力在得分上加了位置偏置：规划假定使用 CUDA 为其运行的融合内核。若改用数学内核，激活内存会高出详细信息中给出的数值。</translation>
    </message>
    <message>
        <source>Attention multiplies by position tensors computed from parameters: where the network copies them for every sample, training keeps more than shown, by the figure the details give.</source>
        <translation>注意力与由参数计算出的位置张量相乘：若网络为每个样本复制它们，训练保留的内容会比显示的多，具体数值见详细信息。</translation>
    </message>
    <message>
        <source>A GELU written out as operations is planned step by step, as PyTorch runs one written in Python. If training runs it as one operation instead (as BLOOM&apos;s does), activation memory is lower by the figure the details give, which can be large.</source>
        <translation>以运算写出的 GELU 按步骤逐一规划，与 PyTorch 运行 Python 写成的 GELU 时一致。如果训练时它作为一个运算运行（如 BLOOM 的），激活内存会低于所示，差值见详细信息，可能很大。</translation>
    </message>
    <message>
        <source>Some activations (ELU, leaky ReLU) may run in place, which the file cannot show: the plan keeps PyTorch&apos;s default, and if the network runs them in place (inplace=True) activation memory is lower by the figure the details give.</source>
        <translation>部分激活层（ELU、Leaky ReLU）可能以原地方式运行，而文件无法体现这一点：计划采用 PyTorch 的默认方式；若网络以原地方式运行它们（inplace=True），激活内存会低于计划，差值见详细信息。</translation>
    </message>
    <message>
        <source>The file&apos;s weights and the plan&apos;s parameters do not match exactly: the weight, gradient and optimizer memory may be off by that difference.</source>
        <translation>文件的权重与计划的参数不完全一致：权重、梯度和优化器内存可能相差这个差值。</translation>
    </message>
    <message>
        <source>Bias vectors were counted as PyTorch has them in training: the parameter count may differ slightly from the file&apos;s (a negligible amount of memory).</source>
        <translation>偏置向量按 PyTorch 训练时的情况计算：参数数量可能与文件略有不同（内存可忽略不计）。</translation>
    </message>
    <message>
        <source>A few layers were planned in a simpler equivalent form (even padding, untransposed input, normalising the last dimension): memory is the same or within a fraction of a percent.</source>
        <translation>少数层以更简单的等价形式规划（对称填充、不转置输入、对最后一维归一化）：内存相同或相差不到百分之一。</translation>
    </message>
    <message>
        <source>%1 was only partly read</source>
        <translation>%1 只读取了一部分</translation>
    </message>
    <message>
        <source>The plan does not cover the whole model: memory and speed figures are too low. %1 of %2 operations could not be planned.</source>
        <translation>计划没有覆盖整个模型：内存和速度数字偏低。%2 个运算中有 %1 个无法规划。</translation>
    </message>
    <message>
        <source>Incomplete import of %1: the figures are too low</source>
        <translation>%1 导入不完整：数字偏低</translation>
    </message>
    <message>
        <source>Opened %1 with warnings</source>
        <translation>已打开 %1（有警告）</translation>
    </message>
    <message>
        <source>The whole model was read. Some parts were approximated; the estimate holds within what each point below says.</source>
        <translation>已读取整个模型。部分内容做了近似；估算的可靠程度见下面各条说明。</translation>
    </message>
    <message>
        <source>%n other approximation(s): see the details.</source>
        <translation>另有 %n 处近似：见详细信息。</translation>
    </message>
    <message>
        <source>Show Details… lists each point with the operations it concerns.</source>
        <translation>“显示详细信息…”列出每一条及其涉及的运算。</translation>
    </message>
    <message>
        <source>Operations: %1 planned, %2 folded into others, %3 not understood. Weights in the file: %4 values; parameters in the plan: %5.</source>
        <translation>运算：%1 个已规划，%2 个并入其他层，%3 个无法理解。文件中的权重：%4 个值；计划中的参数：%5。</translation>
    </message>
</context>
<context>
    <name>LayerChart</name>
    <message>
        <source>kept for backward (MiB)</source>
        <translation>为反向传播保留（MiB）</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>output size (MiB)</source>
        <translation>输出大小（MiB）</translation>
    </message>
</context>
<context>
    <name>LayerEstimateTableModel</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Output shape</source>
        <translation>输出形状</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Kept for backward</source>
        <translation>为反向传播保留</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>FLOPs forward</source>
        <translation>前向 FLOPs</translation>
    </message>
    <message>
        <source>FLOPs backward</source>
        <translation>反向 FLOPs</translation>
    </message>
</context>
<context>
    <name>LayerPropertiesPanel</name>
    <message>
        <source>Layer properties</source>
        <translation>层属性</translation>
    </message>
    <message>
        <source>Select a layer to edit its parameters.</source>
        <translation>选择一个层来编辑其参数。</translation>
    </message>
    <message>
        <source>Layer properties: %1</source>
        <translation>层属性：%1</translation>
    </message>
    <message>
        <source>In the repeated block %1 × %2: a change here is made in every copy.</source>
        <translation>位于重复块 %1 × %2 中：此处的修改会作用于每份副本。</translation>
    </message>
    <message>
        <source>How many copies the repeated block %1 has; the layers after it read the last copy</source>
        <translation>重复块 %1 的副本数；其后的层读取最后一份副本</translation>
    </message>
    <message>
        <source>Copies</source>
        <translation>副本数</translation>
    </message>
    <message>
        <source>A unique name; other layers refer to it in &apos;from&apos; and &apos;input&apos;.</source>
        <translation>唯一的名称；其他层在“from”和“input”中引用它。</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>layer name</source>
        <translation>层名称</translation>
    </message>
    <message>
        <source>layer names, comma separated</source>
        <translation>层名称，用逗号分隔</translation>
    </message>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>every layer needs a name</source>
        <translation>每个层都需要名称</translation>
    </message>
    <message>
        <source>the name &apos;%1&apos; is already used</source>
        <translation>名称“%1”已被使用</translation>
    </message>
    <message>
        <source>layer %1 (%2): %3 — not applied</source>
        <translation>第 %1 层（%2）：%3 — 未应用</translation>
    </message>
</context>
<context>
    <name>LayerTableModel</name>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Output shape</source>
        <translation>输出形状</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Kept for backward</source>
        <translation>为反向传播保留</translation>
    </message>
    <message>
        <source>Repeated block</source>
        <translation>重复块</translation>
    </message>
    <message>
        <source>%1 copies of %2 layers</source>
        <translation>%1 份副本，每份 %2 层</translation>
    </message>
    <message>
        <source>Bytes this layer is the first to keep for the backward pass, at the batch size and precision set above</source>
        <translation>该层首先为反向传播保留的字节数（按上面设置的批量大小和精度）</translation>
    </message>
    <message>
        <source>Edit as name=value pairs; parameters left out take their defaults</source>
        <translation>以 名称=值 的形式编辑；省略的参数取默认值</translation>
    </message>
    <message>
        <source>Trainable parameters (weights and biases) of the layer</source>
        <translation>该层的可训练参数（权重和偏置）</translation>
    </message>
    <message>
        <source>%1: in every one of the %2 copies of %3 (the figures are one copy&apos;s); an edit changes every copy</source>
        <translation>%1：在 %3 的全部 %2 份副本中（数字为一份副本的）；修改会改动每份副本</translation>
    </message>
    <message>
        <source>%1
Names are the block&apos;s own; @input is what each copy starts from (the layer before the block for the first copy, the copy before for the others).</source>
        <translation>%1
名称为块内名称；@input 是每份副本的输入（第一份副本为块之前的层，其余为前一份副本）。</translation>
    </message>
    <message>
        <source>layer %1 (%2): %3</source>
        <translation>第 %1 层（%2）：%3</translation>
    </message>
    <message>
        <source>Waits for an earlier layer with an error</source>
        <translation>等待一个有错误的前面的层</translation>
    </message>
    <message>
        <source>→ or + shows its layers, ← or − hides them</source>
        <translation>按 → 或 + 展开其各层，按 ← 或 − 收起</translation>
    </message>
    <message>
        <source>← or − hides its layers</source>
        <translation>按 ← 或 − 收起其各层</translation>
    </message>
    <message>
        <source>A repeated block: %1 copies of %2 layers, one after the other. The weights and the bytes kept are the sum over every copy. Its layers are shown once; a change to one of them changes every copy. %3</source>
        <translation>重复块：%2 层组成的块依次重复 %1 份。权重和为反向保留的字节是所有副本之和。其各层只显示一次；修改其中一层会改动每份副本。%3</translation>
    </message>
    <message>
        <source>every layer needs a name</source>
        <translation>每个层都需要名称</translation>
    </message>
    <message>
        <source>the name &apos;%1&apos; is already used</source>
        <translation>名称“%1”已被使用</translation>
    </message>
    <message>
        <source>unknown layer type &apos;%1&apos;</source>
        <translation>未知的层类型“%1”</translation>
    </message>
    <message>
        <source>layer %1 (%2): %3 — not applied</source>
        <translation>第 %1 层（%2）：%3 — 未应用</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Planner</source>
        <translation>规划器</translation>
    </message>
    <message>
        <source>Monitor</source>
        <translation>监视器</translation>
    </message>
    <message>
        <source>Catalog</source>
        <translation>显卡目录</translation>
    </message>
    <message>
        <source>Advisor</source>
        <translation>购买顾问</translation>
    </message>
    <message>
        <source>Draft a network and see its memory, fit and scaling (Ctrl+1)</source>
        <translation>起草网络，查看其显存、适配和扩展情况（Ctrl+1）</translation>
    </message>
    <message>
        <source>The NVIDIA cards in this computer, live and recorded (Ctrl+2)</source>
        <translation>本机的 NVIDIA 显卡，实时与录制数据（Ctrl+2）</translation>
    </message>
    <message>
        <source>Every card: search, compare, your prices and cards (Ctrl+3)</source>
        <translation>所有显卡：搜索、比较、你的价格和显卡（Ctrl+3）</translation>
    </message>
    <message>
        <source>What to buy, what to sell, and why (Ctrl+4)</source>
        <translation>买什么、卖什么，以及原因（Ctrl+4）</translation>
    </message>
    <message>
        <source>%1, batch %2</source>
        <translation>%1，批量 %2</translation>
    </message>
    <message>
        <source> (per GPU of %1)</source>
        <translation> （%1 块 GPU 中的每块）</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>新建(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a plan (.json) or an ONNX model (.onnx)</source>
        <translation>打开方案（.json）或 ONNX 模型（.onnx）</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation>首选项(&amp;P)…</translation>
    </message>
    <message>
        <source>Open &amp;Model Folder…</source>
        <translation>打开模型文件夹(&amp;M)…</translation>
    </message>
    <message>
        <source>Open a Hugging Face model folder (config.json, safetensors headers; no weights)</source>
        <translation>打开 Hugging Face 模型文件夹（config.json、safetensors 文件头；不读取权重）</translation>
    </message>
    <message>
        <source>ONNX &amp;Input Shapes…</source>
        <translation>ONNX 输入形状(&amp;I)…</translation>
    </message>
    <message>
        <source>Set the per-sample shape of each input of the imported ONNX model (sequence lengths, image sizes) and import it again</source>
        <translation>设置所导入 ONNX 模型每个输入的单样本形状（序列长度、图像尺寸），然后重新导入</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Planner</source>
        <translation>规划器(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Monitor</source>
        <translation>监视器(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Catalog</source>
        <translation>显卡目录(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Advisor</source>
        <translation>购买顾问(&amp;A)</translation>
    </message>
    <message>
        <source>P&amp;resets</source>
        <translation>预设(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation>使用指南(&amp;U)</translation>
    </message>
    <message>
        <source>What each pane does, how the estimate and the speed are computed, how sure they are, where your files live</source>
        <translation>每个面板的作用、显存估计和速度如何计算、它们有多可靠、你的文件在哪里</translation>
    </message>
    <message>
        <source>&amp;Welcome…</source>
        <translation>欢迎(&amp;W)…</translation>
    </message>
    <message>
        <source>&amp;About GPU Planner</source>
        <translation>关于 GPU Planner(&amp;A)</translation>
    </message>
    <message>
        <source>%1[*] — GPU Planner</source>
        <translation>%1[*] — GPU Planner</translation>
    </message>
    <message>
        <source>Cannot save preferences</source>
        <translation>无法保存首选项</translation>
    </message>
    <message>
        <source>INCOMPLETE IMPORT: the plan does not cover the whole model; memory and speed figures are too low</source>
        <translation>导入不完整：计划没有覆盖整个模型；内存和速度数字偏低</translation>
    </message>
    <message numerus="yes">
        <source>Imported with %n approximation(s) (see the import warnings)</source>
        <translation>
            <numerusform>导入时有 %n 处近似（见导入警告）</numerusform>
        </translation>
    </message>
    <message>
        <source>Your cards (★) come from the SIMULATED source, not a real GPU</source>
        <translation>你的显卡（★）来自模拟数据源，不是真实 GPU</translation>
    </message>
    <message>
        <source>Language changed. The Monitor tab keeps its running session and switches at the next start.</source>
        <translation type="vanished">语言已切换。监控页保留正在进行的会话，下次启动时切换语言。</translation>
    </message>
    <message>
        <source>The language applies to windows opened from now on; restart GPU Planner to see it everywhere.</source>
        <translation type="vanished">语言设置将应用于此后打开的窗口；重启 GPU Planner 后全部生效。</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>清空列表(&amp;C)</translation>
    </message>
    <message>
        <source>Cannot open plan</source>
        <translation type="vanished">无法打开方案</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation type="vanished">已打开 %1</translation>
    </message>
    <message>
        <source>Cannot open ONNX model</source>
        <translation type="vanished">无法打开 ONNX 模型</translation>
    </message>
    <message>
        <source>Opened %1 with warnings</source>
        <translation type="vanished">已打开 %1（有警告）</translation>
    </message>
    <message>
        <source>Opened %1 as a new plan</source>
        <translation type="vanished">已将 %1 作为新方案打开</translation>
    </message>
    <message>
        <source>The file&apos;s multi-GPU setup was not used: %1</source>
        <translation type="vanished">未使用文件中的多 GPU 设置：%1</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation type="vanished">正在打开 %1…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="vanished">取消</translation>
    </message>
    <message>
        <source>Cannot open %1</source>
        <translation type="vanished">无法打开 %1</translation>
    </message>
    <message>
        <source>Opening %1 cancelled</source>
        <translation type="vanished">已取消打开 %1</translation>
    </message>
    <message>
        <source>%1 was only partly read</source>
        <translation type="vanished">%1 只读取了一部分</translation>
    </message>
    <message>
        <source>The plan does not cover the whole model: memory and speed figures are too low. %1 of %2 operations could not be planned.</source>
        <translation type="vanished">计划没有覆盖整个模型：内存和速度数字偏低。%2 个运算中有 %1 个无法规划。</translation>
    </message>
    <message>
        <source>Incomplete import of %1: the figures are too low</source>
        <translation type="vanished">%1 导入不完整：数字偏低</translation>
    </message>
    <message>
        <source>The whole model was read, with assumptions to check.</source>
        <translation type="vanished">整个模型已读取，但有需要核对的假设。</translation>
    </message>
    <message>
        <source>It was exported for inference: the plan adds back the batch norms the export folded away; dropout is not planned.</source>
        <translation type="vanished">该文件是按推理模式导出的：计划补回了导出时折叠掉的批归一化层；未规划 dropout。</translation>
    </message>
    <message>
        <source>Operations: %1 planned, %2 folded into others, %3 not understood. Weights in the file: %4 values; parameters in the plan: %5.</source>
        <translation type="vanished">运算：%1 个已规划，%2 个并入其他层，%3 个无法理解。文件中的权重：%4 个值；计划中的参数：%5。</translation>
    </message>
    <message>
        <source>Cannot save plan</source>
        <translation type="vanished">无法保存方案</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="vanished">%1：%2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation type="vanished">已保存 %1</translation>
    </message>
    <message>
        <source>Cannot load preset</source>
        <translation type="vanished">无法加载预设</translation>
    </message>
    <message>
        <source>Autosave failed: %1</source>
        <translation type="vanished">自动保存失败：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;GPU Planner&lt;/b&gt; %1&lt;p&gt;Plan the memory a network needs to train on an NVIDIA GPU, layer by layer; see how it fits and runs on every card, what to buy or sell, and what your cards do live.&lt;/p&gt;&lt;p&gt;Its reasoning follows Tim Dettmers&apos; article “Which GPU(s) to Get for Deep Learning” (2016 and 2017 revisions, read in its Chinese translation). Memory is shown in MiB/GiB as nvidia-smi shows it.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Licences&lt;/b&gt;&lt;/p&gt;&lt;table&gt;%2&lt;/table&gt;</source>
        <translation>&lt;b&gt;GPU Planner&lt;/b&gt; %1&lt;p&gt;逐层规划一个网络在 NVIDIA GPU 上训练所需的显存；查看它在每块显卡上能否装下、跑得多快，该买什么、卖什么，以及你的显卡实时在做什么。&lt;/p&gt;&lt;p&gt;其推理依据 Tim Dettmers 的文章《深度学习该选哪块 GPU》（2016 与 2017 年修订版，参考其中文译本）。显存按 nvidia-smi 的方式以 MiB/GiB 显示。&lt;/p&gt;&lt;p&gt;&lt;b&gt;许可证&lt;/b&gt;&lt;/p&gt;&lt;table&gt;%2&lt;/table&gt;</translation>
    </message>
    <message>
        <source>About GPU Planner</source>
        <translation>关于 GPU Planner</translation>
    </message>
    <message>
        <source>It was left at %1.</source>
        <translation>它留在 %1。</translation>
    </message>
    <message>
        <source>It was kept as %1.</source>
        <translation>它已另存为 %1。</translation>
    </message>
    <message>
        <source>Cannot restore</source>
        <translation>无法恢复</translation>
    </message>
    <message>
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <source>GPU catalog</source>
        <translation>GPU 目录</translation>
    </message>
    <message>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
    <message>
        <source>Something went wrong: %1

The details were written to %2.</source>
        <translation>出错了：%1

详细信息已写入 %2。</translation>
    </message>
    <message>
        <source>Restore unsaved plan?</source>
        <translation>恢复未保存的方案？</translation>
    </message>
    <message>
        <source>GPU Planner did not close cleanly last time. Restore the plan you were editing?</source>
        <translation>GPU Planner 上次没有正常关闭。要恢复您当时正在编辑的方案吗？</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>Save the changes to “%1” before closing it?</source>
        <translation>关闭前保存对“%1”的更改吗？</translation>
    </message>
    <message>
        <source>Plans and ONNX models (*.json *.onnx);;Plan files (*.json);;ONNX models (*.onnx);;All files (*)</source>
        <translation>方案和 ONNX 模型 (*.json *.onnx);;方案文件 (*.json);;ONNX 模型 (*.onnx);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Open plan or ONNX model</source>
        <translation>打开方案或 ONNX 模型</translation>
    </message>
    <message>
        <source>Save plan</source>
        <translation>保存方案</translation>
    </message>
    <message>
        <source>Plan files (*.json)</source>
        <translation>方案文件 (*.json)</translation>
    </message>
</context>
<context>
    <name>ModelFolder</name>
    <message>
        <source>Open model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>Cannot open model folder</source>
        <translation>无法打开模型文件夹</translation>
    </message>
    <message>
        <source>Parameters in the plan: %1; in the safetensors headers: %2.</source>
        <translation>方案中的参数：%1；safetensors 文件头中的参数：%2。</translation>
    </message>
    <message>
        <source>no safetensors files</source>
        <translation>没有 safetensors 文件</translation>
    </message>
    <message>
        <source>%1 was only partly read</source>
        <translation>%1 只读取了一部分</translation>
    </message>
    <message>
        <source>The plan does not match the model folder exactly: check the figures.</source>
        <translation>方案与模型文件夹不完全一致：请核对数字。</translation>
    </message>
    <message>
        <source>Incomplete import of %1: the figures are not exact</source>
        <translation>%1 导入不完整：数字不精确</translation>
    </message>
    <message>
        <source>Opened %1 with warnings</source>
        <translation>已打开 %1（有警告）</translation>
    </message>
    <message>
        <source>Opened %1 as a new plan (%2)</source>
        <translation>已将 %1 打开为新方案（%2）</translation>
    </message>
</context>
<context>
    <name>Monitor</name>
    <message>
        <source>(simulated)</source>
        <translation>（模拟）</translation>
    </message>
</context>
<context>
    <name>MonitorPane</name>
    <message>
        <source>1 min</source>
        <translation>1 分钟</translation>
    </message>
    <message>
        <source>10 min</source>
        <translation>10 分钟</translation>
    </message>
    <message>
        <source>1 h</source>
        <translation>1 小时</translation>
    </message>
    <message>
        <source>Whole session</source>
        <translation>整个会话</translation>
    </message>
    <message>
        <source>Try the simulated demo</source>
        <translation>试用模拟演示</translation>
    </message>
    <message>
        <source>Local cards</source>
        <translation>本机显卡</translation>
    </message>
    <message>
        <source>Stop watching the cluster and show this computer&apos;s cards again</source>
        <translation>停止监视集群，重新显示本机的显卡</translation>
    </message>
    <message>
        <source>SIMULATED</source>
        <translation>模拟</translation>
    </message>
    <message>
        <source>Every value shown comes from a simulated source, not from a GPU</source>
        <translation>显示的所有数值都来自模拟数据源，而不是 GPU</translation>
    </message>
    <message>
        <source>Cluster…</source>
        <translation>集群…</translation>
    </message>
    <message>
        <source>Watch the GPUs of a cluster through a Prometheus server (dcgm-exporter)</source>
        <translation>通过 Prometheus 服务器（dcgm-exporter）监视集群的 GPU</translation>
    </message>
    <message>
        <source>The session of this recording to replay</source>
        <translation>要回放的这份记录中的会话</translation>
    </message>
    <message>
        <source>Back to live</source>
        <translation>返回实时</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Seconds between samples (0.1–10)</source>
        <translation>两次采样之间的秒数（0.1–10）</translation>
    </message>
    <message>
        <source>Pause plots</source>
        <translation>暂停绘图</translation>
    </message>
    <message>
        <source>Freeze the plots; sampling and recording go on</source>
        <translation>冻结图表；采样和录制继续进行</translation>
    </message>
    <message>
        <source>Export plot…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Export data…</source>
        <translation>导出数据…</translation>
    </message>
    <message>
        <source>Recordings…</source>
        <translation>录制记录…</translation>
    </message>
    <message>
        <source>Alert when memory in use passes this share of the card&apos;s memory</source>
        <translation>已用显存超过显卡显存的这一比例时报警</translation>
    </message>
    <message>
        <source>Alert when a card&apos;s temperature passes this</source>
        <translation>显卡温度超过此值时报警</translation>
    </message>
    <message>
        <source>Card:</source>
        <translation>显卡：</translation>
    </message>
    <message>
        <source>Window:</source>
        <translation>时间窗口：</translation>
    </message>
    <message>
        <source>Sample every</source>
        <translation>采样间隔</translation>
    </message>
    <message>
        <source>Alert at memory</source>
        <translation>显存报警阈值</translation>
    </message>
    <message>
        <source>or</source>
        <translation>或</translation>
    </message>
    <message>
        <source>Compare with plan</source>
        <translation>与方案比较</translation>
    </message>
    <message>
        <source>The plan&apos;s predicted peak against the peak of the followed process (or of the selected card)</source>
        <translation>方案预测的峰值与所跟踪进程（或所选显卡）的峰值对比</translation>
    </message>
    <message>
        <source>Stop following</source>
        <translation>停止跟踪</translation>
    </message>
    <message>
        <source>Select a process to follow its memory.</source>
        <translation>选择一个进程以跟踪其显存。</translation>
    </message>
    <message>
        <source>Processes on the selected card</source>
        <translation>所选显卡上的进程</translation>
    </message>
    <message>
        <source>Cluster %1: no telemetry</source>
        <translation>集群 %1：没有遥测数据</translation>
    </message>
    <message>
        <source>Cluster %1: connecting…</source>
        <translation>集群 %1：正在连接…</translation>
    </message>
    <message>
        <source>Cluster (Prometheus, dcgm-exporter) · %1 · %2 host(s) · %3 card(s)</source>
        <translation>集群（Prometheus，dcgm-exporter）· %1 · %2 台主机 · %3 块显卡</translation>
    </message>
    <message>
        <source>Simulated source — no GPU is read; %1 simulated card(s)</source>
        <translation>模拟数据源 — 未读取任何 GPU；%1 块模拟显卡</translation>
    </message>
    <message>
        <source>Live (NVML) · driver %1 · CUDA %2 · %3 card(s)</source>
        <translation>实时（NVML）· 驱动 %1 · CUDA %2 · %3 块显卡</translation>
    </message>
    <message>
        <source>Recording stopped: %1</source>
        <translation>录制已停止：%1</translation>
    </message>
    <message>
        <source>The recording %1 goes on when samples arrive again</source>
        <translation>采样恢复后，录制 %1 会继续</translation>
    </message>
    <message>
        <source>● Recording: %1</source>
        <translation>● 正在录制：%1</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>正在连接 %1…</translation>
    </message>
    <message>
        <source>Watching the cluster at %1</source>
        <translation>正在监视位于 %1 的集群</translation>
    </message>
    <message>
        <source>Seconds between samples (%1–%2)</source>
        <translation>两次采样之间的秒数（%1–%2）</translation>
    </message>
    <message>
        <source>The cluster cannot be watched: %1.

“Local cards” shows this computer&apos;s cards again.</source>
        <translation>无法监视集群：%1。

“本机显卡”会重新显示本机的显卡。</translation>
    </message>
    <message>
        <source>Telemetry: %1</source>
        <translation>遥测：%1</translation>
    </message>
    <message>
        <source>%1 is marked lost (%2); the other cards go on</source>
        <translation>%1 已标记为丢失（%2）；其他显卡继续</translation>
    </message>
    <message>
        <source>GPU %1 stopped answering and is marked lost; the other cards go on</source>
        <translation>GPU %1 停止响应，已标记为丢失；其他显卡继续</translation>
    </message>
    <message>
        <source>process %1 (%2) on GPU %3 ended</source>
        <translation>GPU %3 上的进程 %1（%2）已结束</translation>
    </message>
    <message>
        <source>Alert: %1</source>
        <translation>报警：%1</translation>
    </message>
    <message>
        <source>GPU %1: memory in use %2% (alert at %3%)</source>
        <translation>GPU %1：已用显存 %2%（报警阈值 %3%）</translation>
    </message>
    <message>
        <source>GPU %1: temperature %2 °C (alert at %3 °C)</source>
        <translation>GPU %1：温度 %2 °C（报警阈值 %3 °C）</translation>
    </message>
    <message>
        <source>Long window: %1-second buckets (memory: the bucket&apos;s maximum, the rest: its mean)</source>
        <translation>长时间窗口：%1 秒分桶（显存取桶内最大值，其余取平均值）</translation>
    </message>
    <message>
        <source>process %1</source>
        <translation>进程 %1</translation>
    </message>
    <message>
        <source>Following process %1 (%2) on GPU %3.</source>
        <translation>正在跟踪 GPU %3 上的进程 %1（%2）。</translation>
    </message>
    <message>
        <source>plan predicted %1, the run peaked at %2 (%3%)</source>
        <translation>方案预测 %1，运行峰值 %2（%3%）</translation>
    </message>
    <message>
        <source>process %1 (%2) on GPU %3</source>
        <translation>GPU %3 上的进程 %1（%2）</translation>
    </message>
    <message>
        <source>GPU %1, whole card</source>
        <translation>GPU %1，整卡</translation>
    </message>
    <message>
        <source>Plot saved to %1</source>
        <translation>图表已保存到 %1</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>%1 rows saved to %2</source>
        <translation>已将 %1 行保存到 %2</translation>
    </message>
    <message>
        <source>Cannot replay: %1</source>
        <translation>无法回放：%1</translation>
    </message>
    <message>
        <source>REPLAY of the recording of %1 (%2) — not live</source>
        <translation>回放 %1 的录制（%2）— 非实时</translation>
    </message>
    <message>
        <source> · session %1 of %2</source>
        <translation> · 第 %1 个会话（共 %2 个）</translation>
    </message>
    <message>
        <source>Session %1: %2, %3</source>
        <translation>会话 %1：%2，%3</translation>
    </message>
    <message>
        <source>REPLAY %1 — </source>
        <translation>回放 %1 — </translation>
    </message>
    <message>
        <source>not closed: samples after %1 may be missing</source>
        <translation>未正常关闭：%1 之后的样本可能缺失</translation>
    </message>
    <message>
        <source>%1 samples not recorded from %2</source>
        <translation>自 %2 起有 %1 个样本未记录</translation>
    </message>
    <message>
        <source>not closed: samples after {when} may be missing</source>
        <translation type="vanished">未正常关闭：{when} 之后的样本可能缺失</translation>
    </message>
    <message>
        <source>{n} samples not recorded from {when}</source>
        <translation type="vanished">自 {when} 起有 {n} 个样本未记录</translation>
    </message>
    <message>
        <source>the recording was not closed: samples after {when} may be missing</source>
        <translation type="vanished">记录未正常关闭：{when} 之后的样本可能缺失</translation>
    </message>
    <message>
        <source>{n} samples not recorded from {when} ({why})</source>
        <translation type="vanished">自 {when} 起有 {n} 个样本未记录（{why}）</translation>
    </message>
    <message>
        <source>Waiting for the first sample…</source>
        <translation>正在等待第一次采样…</translation>
    </message>
    <message>
        <source>Cluster {url}: no telemetry</source>
        <translation type="vanished">集群 {url}：没有遥测数据</translation>
    </message>
    <message>
        <source>Cluster {url}: connecting…</source>
        <translation type="vanished">集群 {url}：正在连接…</translation>
    </message>
    <message>
        <source>No live telemetry</source>
        <translation>没有实时遥测</translation>
    </message>
    <message>
        <source>Cluster (Prometheus, dcgm-exporter) · {url} · {h} host(s) · {n} card(s)</source>
        <translation type="vanished">集群（Prometheus，dcgm-exporter）· {url} · {h} 台主机 · {n} 块显卡</translation>
    </message>
    <message>
        <source>Simulated source — no GPU is read; {n} simulated card(s)</source>
        <translation type="vanished">模拟数据源 — 未读取任何 GPU；{n} 块模拟显卡</translation>
    </message>
    <message>
        <source>Live (NVML) · driver {drv} · CUDA {cuda} · {n} card(s)</source>
        <translation type="vanished">实时（NVML）· 驱动 {drv} · CUDA {cuda} · {n} 块显卡</translation>
    </message>
    <message>
        <source>Not recording</source>
        <translation>未在录制</translation>
    </message>
    <message>
        <source>Recording failed</source>
        <translation type="vanished">录制失败</translation>
    </message>
    <message>
        <source>● Recording: {name}</source>
        <translation type="vanished">● 正在录制：{name}</translation>
    </message>
    <message>
        <source>Resume plots</source>
        <translation>恢复绘图</translation>
    </message>
    <message>
        <source>Plots paused; sampling and recording go on</source>
        <translation>绘图已暂停；采样和录制继续进行</translation>
    </message>
    <message>
        <source>Starting the simulated demo…</source>
        <translation>正在启动模拟演示…</translation>
    </message>
    <message>
        <source>Showing the simulated demo: no GPU is read</source>
        <translation>正在显示模拟演示：未读取任何 GPU</translation>
    </message>
    <message>
        <source>Connecting to {url}…</source>
        <translation type="vanished">正在连接 {url}…</translation>
    </message>
    <message>
        <source>Watching the cluster at {url}</source>
        <translation type="vanished">正在监视位于 {url} 的集群</translation>
    </message>
    <message>
        <source>Showing this computer&apos;s cards</source>
        <translation>正在显示本机的显卡</translation>
    </message>
    <message>
        <source>Seconds between samples ({lo:g}–{hi:g})</source>
        <translation type="vanished">两次采样之间的秒数（{lo:g}–{hi:g}）</translation>
    </message>
    <message>
        <source>The cluster cannot be watched: {msg}.

“Local cards” shows this computer&apos;s cards again.</source>
        <translation type="vanished">无法监视集群：{msg}。

“本机显卡”会重新显示本机的显卡。</translation>
    </message>
    <message>
        <source>No live telemetry.

The Planner and the advice do not need it. “Try the simulated demo” shows what this pane does with simulated cards.</source>
        <translation>没有实时遥测。

规划器和购买建议都不需要它。“试用模拟演示”会用模拟显卡展示此面板的功能。</translation>
    </message>
    <message>
        <source>No live telemetry: {msg}.

The Planner and the advice do not need it. “Try the simulated demo” shows what this pane does with simulated cards.</source>
        <translation type="vanished">没有实时遥测：{msg}。

规划器和购买建议都不需要它。“试用模拟演示”会用模拟显卡展示此面板的功能。</translation>
    </message>
    <message>
        <source>Telemetry: {msg}</source>
        <translation type="vanished">遥测：{msg}</translation>
    </message>
    <message>
        <source>All cards</source>
        <translation>所有显卡</translation>
    </message>
    <message>
        <source>{card} is marked lost ({why}); the other cards go on</source>
        <translation type="vanished">{card} 已标记为丢失（{why}）；其他显卡继续</translation>
    </message>
    <message>
        <source>no data</source>
        <translation>无数据</translation>
    </message>
    <message>
        <source>GPU {i} stopped answering and is marked lost; the other cards go on</source>
        <translation type="vanished">GPU {i} 停止响应，已标记为丢失；其他显卡继续</translation>
    </message>
    <message>
        <source>No NVIDIA card was found.</source>
        <translation>未找到 NVIDIA 显卡。</translation>
    </message>
    <message>
        <source>process {pid} ({name}) on GPU {dev} ended</source>
        <translation type="vanished">GPU {dev} 上的进程 {pid}（{name}）已结束</translation>
    </message>
    <message>
        <source>GPU {i}: memory in use {pct:.0f}% (alert at {lim:.0f}%)</source>
        <translation type="vanished">GPU {i}：已用显存 {pct:.0f}%（报警阈值 {lim:.0f}%）</translation>
    </message>
    <message>
        <source>GPU {i}: temperature {t:.0f} °C (alert at {lim:.0f} °C)</source>
        <translation type="vanished">GPU {i}：温度 {t:.0f} °C（报警阈值 {lim:.0f} °C）</translation>
    </message>
    <message>
        <source>Alert: {text}</source>
        <translation type="vanished">报警：{text}</translation>
    </message>
    <message>
        <source>■ Recording stopped</source>
        <translation>■ 录制已停止</translation>
    </message>
    <message>
        <source>Recording stopped: {why}</source>
        <translation type="vanished">录制已停止：{why}</translation>
    </message>
    <message>
        <source>Recording paused: no data</source>
        <translation>录制已暂停：没有数据</translation>
    </message>
    <message>
        <source>The recording {name} goes on when samples arrive again</source>
        <translation type="vanished">采样恢复后，录制 {name} 会继续</translation>
    </message>
    <message>
        <source>Long window: {b:.0f}-second buckets (memory: the bucket&apos;s maximum, the rest: its mean)</source>
        <translation type="vanished">长时间窗口：{b:.0f} 秒分桶（显存取桶内最大值，其余取平均值）</translation>
    </message>
    <message>
        <source>process {pid}</source>
        <translation type="vanished">进程 {pid}</translation>
    </message>
    <message>
        <source>Following process {pid} ({name}) on GPU {dev}.</source>
        <translation type="vanished">正在跟踪 GPU {dev} 上的进程 {pid}（{name}）。</translation>
    </message>
    <message>
        <source>plan predicted {pred}, the run peaked at {peak} ({diff:+.0f}%)</source>
        <translation type="vanished">方案预测 {pred}，运行峰值 {peak}（{diff:+.0f}%）</translation>
    </message>
    <message>
        <source>No predicted peak to compare with: draft a plan in the Planner.</source>
        <translation>没有可比较的预测峰值：请先在规划器中起草方案。</translation>
    </message>
    <message>
        <source>No memory reading of that process yet.</source>
        <translation>尚未读到该进程的显存。</translation>
    </message>
    <message>
        <source>process {pid} ({name}) on GPU {dev}</source>
        <translation type="vanished">GPU {dev} 上的进程 {pid}（{name}）</translation>
    </message>
    <message>
        <source>No memory reading yet.</source>
        <translation>尚未读到显存。</translation>
    </message>
    <message>
        <source>GPU {dev}, whole card</source>
        <translation type="vanished">GPU {dev}，整卡</translation>
    </message>
    <message>
        <source>Nothing to export yet: no samples in the shown time window</source>
        <translation>还没有可导出的内容：所示时间窗口内没有采样</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG (*.png)</source>
        <translation>PNG (*.png)</translation>
    </message>
    <message>
        <source>Plot saved to {path}</source>
        <translation type="vanished">图表已保存到 {path}</translation>
    </message>
    <message>
        <source>Export data</source>
        <translation>导出数据</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Export failed: {err}</source>
        <translation type="vanished">导出失败：{err}</translation>
    </message>
    <message>
        <source>{n} rows saved to {path}</source>
        <translation type="vanished">已将 {n} 行保存到 {path}</translation>
    </message>
    <message>
        <source>no card</source>
        <translation>没有显卡</translation>
    </message>
    <message>
        <source>replay of a recording</source>
        <translation>录制的回放</translation>
    </message>
    <message>
        <source>SIMULATED data, not a real GPU</source>
        <translation>模拟数据，不是真实 GPU</translation>
    </message>
    <message>
        <source>cluster (Prometheus)</source>
        <translation>集群（Prometheus）</translation>
    </message>
    <message>
        <source>live (NVML)</source>
        <translation>实时（NVML）</translation>
    </message>
    <message>
        <source>Cannot replay: {err}</source>
        <translation type="vanished">无法回放：{err}</translation>
    </message>
    <message>
        <source>REPLAY of the recording of {when} ({src}) — not live</source>
        <translation type="vanished">回放 {when} 的录制（{src}）— 非实时</translation>
    </message>
    <message>
        <source> · session {k} of {n}</source>
        <translation type="vanished"> · 第 {k} 个会话（共 {n} 个）</translation>
    </message>
    <message>
        <source>Session {k}: {when}, {cards}</source>
        <translation type="vanished">会话 {k}：{when}，{cards}</translation>
    </message>
    <message>
        <source>REPLAY {when} — </source>
        <translation type="vanished">回放 {when} — </translation>
    </message>
</context>
<context>
    <name>MonitorPlots</name>
    <message>
        <source>Memory in use</source>
        <translation>已用显存</translation>
    </message>
    <message>
        <source>Memory bandwidth (estimate)</source>
        <translation>显存带宽（估计）</translation>
    </message>
    <message>
        <source>Bandwidth (est.)</source>
        <translation>带宽（估计）</translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>繁忙</translation>
    </message>
    <message>
        <source>PCIe traffic</source>
        <translation>PCIe 流量</translation>
    </message>
    <message>
        <source>PCIe</source>
        <translation>PCIe</translation>
    </message>
    <message>
        <source>Time (local clock)</source>
        <translation>时间（本地时钟）</translation>
    </message>
    <message>
        <source>memory in use</source>
        <translation>已用显存</translation>
    </message>
    <message>
        <source>total</source>
        <translation>总量</translation>
    </message>
    <message>
        <source>estimate (busy × peak)</source>
        <translation>估计（繁忙 × 峰值）</translation>
    </message>
    <message>
        <source>peak %1 GB/s</source>
        <translation>峰值 %1 GB/s</translation>
    </message>
    <message>
        <source>plan: %1 GiB</source>
        <translation>方案：%1 GiB</translation>
    </message>
    <message>
        <source>peak {bw:.0f} GB/s</source>
        <translation type="vanished">峰值 {bw:.0f} GB/s</translation>
    </message>
    <message>
        <source>DRAM bandwidth (GPM, measured)</source>
        <translation>DRAM 带宽（GPM，实测）</translation>
    </message>
    <message>
        <source>GPU busy</source>
        <translation>GPU 繁忙</translation>
    </message>
    <message>
        <source>memory-controller busy</source>
        <translation>显存控制器繁忙</translation>
    </message>
    <message>
        <source>receive</source>
        <translation>接收</translation>
    </message>
    <message>
        <source>transmit</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>lighter: memory-controller busy</source>
        <translation>浅色：显存控制器繁忙</translation>
    </message>
    <message>
        <source>lighter: transmit</source>
        <translation>浅色：发送</translation>
    </message>
    <message>
        <source>lighter: DRAM (GPM, measured)</source>
        <translation>浅色：DRAM（GPM，实测）</translation>
    </message>
    <message>
        <source>plan&apos;s predicted peak</source>
        <translation>方案预测峰值</translation>
    </message>
    <message>
        <source>plan: {gib:.1f} GiB</source>
        <translation type="vanished">方案：{gib:.1f} GiB</translation>
    </message>
</context>
<context>
    <name>OnnxInputs</name>
    <message>
        <source>Input shapes of %1</source>
        <translation>%1 的输入形状</translation>
    </message>
    <message>
        <source>The per-sample shape of each input the plan follows, without the batch (the batch is the plan&apos;s, the same for every input): a sequence length for token ids (128), C×H×W for images (3×224×224). The file is imported again at these shapes.</source>
        <translation>计划所跟随的每个输入的单样本形状，不含批次（批次取计划的批次，所有输入相同）：词元 ID 填序列长度（128），图像填 C×H×W（3×224×224）。文件将按这些形状重新导入。</translation>
    </message>
    <message>
        <source>Per-sample shape, e.g. 128 or 3x224x224</source>
        <translation>单样本形状，例如 128 或 3x224x224</translation>
    </message>
    <message>
        <source>Taken as given (masks, positions, token types; their shapes follow the inputs they go with): %1</source>
        <translation>视为给定值（掩码、位置、词元类型；其形状随所对应的输入而定）：%1</translation>
    </message>
    <message>
        <source>Import Again</source>
        <translation>重新导入</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="obsolete">%1：%2</translation>
    </message>
    <message>
        <source>No ONNX model</source>
        <translation>没有 ONNX 模型</translation>
    </message>
    <message>
        <source>Open an ONNX model first (File ▸ Open…): its inputs&apos; shapes are set here.</source>
        <translation>请先打开一个 ONNX 模型（文件 ▸ 打开…）：在此设置其输入的形状。</translation>
    </message>
    <message>
        <source>No inputs to set</source>
        <translation>没有可设置的输入</translation>
    </message>
    <message>
        <source>This import does not list its inputs; open the file again.</source>
        <translation>这次导入没有列出其输入；请重新打开该文件。</translation>
    </message>
</context>
<context>
    <name>OptionsChart</name>
    <message>
        <source>net cost (USD)</source>
        <translation>净成本（美元）</translation>
    </message>
    <message>
        <source>speed (samples/s)</source>
        <translation>速度（样本/秒）</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>样本/秒</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>词元/秒</translation>
    </message>
    <message>
        <source>%1 (yours)</source>
        <translation>%1（你的）</translation>
    </message>
    <message>
        <source>your %1</source>
        <translation>你的 %1</translation>
    </message>
    <message>
        <source>speed (tokens/s)</source>
        <translation>速度（词元/秒）</translation>
    </message>
    <message>
        <source>Speed on %1 against net cost</source>
        <translation>%1 上的速度与净成本</translation>
    </message>
    <message>
        <source>speed on %1 (samples/s)</source>
        <translation type="vanished">在 %1 上的速度（样本/秒）</translation>
    </message>
</context>
<context>
    <name>OwnedCardsTableModel</name>
    <message>
        <source>Card</source>
        <translation>显卡</translation>
    </message>
    <message>
        <source>Condition</source>
        <translation>成色</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>数量</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>new</source>
        <translation>全新</translation>
    </message>
    <message>
        <source>used</source>
        <translation>二手</translation>
    </message>
    <message>
        <source>detected</source>
        <translation>已检测</translation>
    </message>
    <message>
        <source>simulated</source>
        <translation>模拟</translation>
    </message>
    <message>
        <source>added</source>
        <translation>已添加</translation>
    </message>
    <message>
        <source>Found in this computer by the monitor; counts as owned.</source>
        <translation>由监视器在本机找到；算作你拥有的。</translation>
    </message>
    <message>
        <source>Added by hand; saved with your catalog overrides.</source>
        <translation>手动添加；与你的目录覆盖一起保存。</translation>
    </message>
</context>
<context>
    <name>PlanCommand</name>
    <message>
        <source>Edit layer %1</source>
        <translation>编辑第 %1 层</translation>
    </message>
    <message>
        <source>Remove layer %1</source>
        <translation>删除第 %1 层</translation>
    </message>
    <message>
        <source>Move layer %1</source>
        <translation>移动第 %1 层</translation>
    </message>
    <message>
        <source>Change batch size</source>
        <translation>更改批量大小</translation>
    </message>
    <message>
        <source>Change precision</source>
        <translation>更改精度</translation>
    </message>
    <message>
        <source>Change optimizer</source>
        <translation>更改优化器</translation>
    </message>
    <message>
        <source>Change mode</source>
        <translation>更改模式</translation>
    </message>
    <message>
        <source>Change setup</source>
        <translation>更改设置</translation>
    </message>
    <message>
        <source>Apply: %1</source>
        <translation>应用：%1</translation>
    </message>
    <message>
        <source>Repeat layers as %1 × %2</source>
        <translation>将层重复为 %1 × %2</translation>
    </message>
    <message>
        <source>Set copies of %1 to %2</source>
        <translation>将 %1 的副本数设为 %2</translation>
    </message>
    <message>
        <source>Unrepeat block %1</source>
        <translation>取消重复块 %1</translation>
    </message>
</context>
<context>
    <name>PlanExporter</name>
    <message>
        <source>CSV (*.csv);;JSON (*.json)</source>
        <translation>CSV (*.csv);;JSON (*.json)</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG image (*.svg)</source>
        <translation>PNG 图像 (*.png);;SVG 图像 (*.svg)</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation>通信缓冲区</translation>
    </message>
    <message>
        <source>Gathered weights (ZeRO-3 / FSDP)</source>
        <translation>聚集的权重（ZeRO-3 / FSDP）</translation>
    </message>
    <message>
        <source>There is no estimate to export: the plan is empty or has errors.</source>
        <translation>没有可导出的估算：计划为空或有错误。</translation>
    </message>
    <message>
        <source>Peak (sum of the terms)</source>
        <translation>峰值（各项之和）</translation>
    </message>
    <message>
        <source>Tensors at the peak (torch.cuda.max_memory_allocated)</source>
        <translation>峰值时的张量（torch.cuda.max_memory_allocated）</translation>
    </message>
    <message>
        <source>Allocator holds (max_memory_reserved, simulated)</source>
        <translation>分配器占用（max_memory_reserved，模拟）</translation>
    </message>
    <message>
        <source>nvidia-smi shows (reserved + context)</source>
        <translation>nvidia-smi 显示（保留 + 上下文）</translation>
    </message>
    <message>
        <source>There are no layers to export: the plan is empty or has errors.</source>
        <translation>没有可导出的层：计划为空或有错误。</translation>
    </message>
    <message>
        <source>There are no cards to export: the plan is empty or has errors, or the filters hide every card.</source>
        <translation>没有可导出的显卡：计划为空或有错误，或筛选条件隐藏了所有显卡。</translation>
    </message>
    <message>
        <source>%1 of %2 cards (the table&apos;s filters)</source>
        <translation>%2 块显卡中的 %1 块（表格的筛选条件）</translation>
    </message>
    <message>
        <source>Export as .csv or .json, not “%1”</source>
        <translation>请导出为 .csv 或 .json，而不是“%1”</translation>
    </message>
    <message>
        <source>Export a chart as .png or .svg, not “%1”</source>
        <translation>请将图表导出为 .png 或 .svg，而不是“%1”</translation>
    </message>
    <message>
        <source>the file was not written</source>
        <translation>文件没有写入</translation>
    </message>
    <message>
        <source>Memory &amp;Breakdown (CSV/JSON)…</source>
        <translation>内存构成(&amp;B)（CSV/JSON）…</translation>
    </message>
    <message>
        <source>&amp;Per-layer Table (CSV/JSON)…</source>
        <translation>逐层表格(&amp;P)（CSV/JSON）…</translation>
    </message>
    <message>
        <source>&amp;Fit Table (CSV/JSON)…</source>
        <translation>适配表(&amp;F)（CSV/JSON）…</translation>
    </message>
    <message>
        <source>Per-layer &amp;Chart (PNG/SVG)…</source>
        <translation>逐层图表(&amp;C)（PNG/SVG）…</translation>
    </message>
    <message>
        <source>Memory over the &amp;Step Chart (PNG/SVG)…</source>
        <translation>训练步骤内存曲线(&amp;S)（PNG/SVG）…</translation>
    </message>
    <message>
        <source>Several &amp;GPUs Chart (PNG/SVG)…</source>
        <translation>多块 GPU 图表(&amp;G)（PNG/SVG）…</translation>
    </message>
    <message>
        <source>Fit Chart: Samples/s against &amp;Price (PNG/SVG)…</source>
        <translation>适配图：样本/秒与价格(&amp;P)（PNG/SVG）…</translation>
    </message>
    <message>
        <source>Fit Chart: &amp;Memory against Price (PNG/SVG)…</source>
        <translation>适配图：显存与价格(&amp;M)（PNG/SVG）…</translation>
    </message>
    <message>
        <source>Memory per layer</source>
        <translation>每层内存</translation>
    </message>
    <message>
        <source>Memory over the training step</source>
        <translation>训练步骤内的内存</translation>
    </message>
    <message>
        <source>Speed-up on several GPUs</source>
        <translation>多块 GPU 的加速比</translation>
    </message>
    <message>
        <source>Samples/s against price</source>
        <translation>样本/秒与价格</translation>
    </message>
    <message>
        <source>Memory against price</source>
        <translation>显存与价格</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Export Current View…</source>
        <translation>导出当前视图(&amp;E)…</translation>
    </message>
    <message>
        <source>Export what the result tab shows: a table as CSV or JSON, a chart as PNG or SVG</source>
        <translation>导出结果标签页显示的内容：表格导出为 CSV 或 JSON，图表导出为 PNG 或 SVG</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>There is no catalog to fit the plan to.</source>
        <translation>没有可用于适配计划的显卡目录。</translation>
    </message>
    <message>
        <source>There is no estimate to draw: the plan is empty or has errors.</source>
        <translation>没有可绘制的估算：计划为空或有错误。</translation>
    </message>
    <message>
        <source>No scaling curve to export.</source>
        <translation>没有可导出的扩展曲线。</translation>
    </message>
    <message>
        <source>No card with a price is shown: nothing to draw.</source>
        <translation>没有显示带价格的显卡：没有可绘制的内容。</translation>
    </message>
    <message>
        <source>Nothing to export</source>
        <translation>没有可导出的内容</translation>
    </message>
    <message>
        <source>Export %1</source>
        <translation>导出%1</translation>
    </message>
    <message>
        <source>%1 saved to %2</source>
        <translation>%1 已保存到 %2</translation>
    </message>
    <message>
        <source>%n row(s) saved to %1</source>
        <translation>%n 行已保存到 %1</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>PlanFiles</name>
    <message>
        <source>Cannot load preset</source>
        <translation>无法加载预设</translation>
    </message>
    <message>
        <source>Cannot open plan</source>
        <translation>无法打开方案</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>The file&apos;s multi-GPU setup was not used: %1</source>
        <translation>未使用文件中的多 GPU 设置：%1</translation>
    </message>
    <message>
        <source>Cannot open ONNX model</source>
        <translation>无法打开 ONNX 模型</translation>
    </message>
    <message>
        <source>Opened %1 as a new plan</source>
        <translation>已将 %1 作为新方案打开</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cannot open %1</source>
        <translation>无法打开 %1</translation>
    </message>
    <message>
        <source>Opening %1 cancelled</source>
        <translation>已取消打开 %1</translation>
    </message>
    <message>
        <source>%1 was only partly read</source>
        <translation type="vanished">%1 只读取了一部分</translation>
    </message>
    <message>
        <source>The plan does not cover the whole model: memory and speed figures are too low. %1 of %2 operations could not be planned.</source>
        <translation type="vanished">计划没有覆盖整个模型：内存和速度数字偏低。%2 个运算中有 %1 个无法规划。</translation>
    </message>
    <message>
        <source>Incomplete import of %1: the figures are too low</source>
        <translation type="vanished">%1 导入不完整：数字偏低</translation>
    </message>
    <message>
        <source>Opened %1 with warnings</source>
        <translation type="vanished">已打开 %1（有警告）</translation>
    </message>
    <message>
        <source>The whole model was read, with assumptions to check.</source>
        <translation type="vanished">整个模型已读取，但有需要核对的假设。</translation>
    </message>
    <message>
        <source>It was exported for inference: the plan adds back the batch norms the export folded away; dropout is not planned.</source>
        <translation type="vanished">该文件是按推理模式导出的：计划补回了导出时折叠掉的批归一化层；未规划 dropout。</translation>
    </message>
    <message>
        <source>Operations: %1 planned, %2 folded into others, %3 not understood. Weights in the file: %4 values; parameters in the plan: %5.</source>
        <translation type="vanished">运算：%1 个已规划，%2 个并入其他层，%3 个无法理解。文件中的权重：%4 个值；计划中的参数：%5。</translation>
    </message>
    <message>
        <source>Cannot save plan</source>
        <translation>无法保存方案</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Autosave failed: %1</source>
        <translation>自动保存失败：%1</translation>
    </message>
</context>
<context>
    <name>PlannerPane</name>
    <message>
        <source>Add Layer of &amp;Type</source>
        <translation>添加指定类型的层</translation>
    </message>
    <message>
        <source>&amp;Insert Layer Before</source>
        <translation>在前面插入层(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Add Layer</source>
        <translation>添加层(&amp;A)</translation>
    </message>
    <message>
        <source>Add a layer of the same type after the selected one</source>
        <translation>在所选层之后添加一个同类型的层</translation>
    </message>
    <message>
        <source>&amp;Duplicate Layer</source>
        <translation>复制层(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Remove Layer</source>
        <translation>删除层(&amp;R)</translation>
    </message>
    <message>
        <source>Move &amp;Up</source>
        <translation>上移(&amp;U)</translation>
    </message>
    <message>
        <source>Move Do&amp;wn</source>
        <translation>下移(&amp;W)</translation>
    </message>
    <message>
        <source>Re&amp;peat Layers…</source>
        <translation>重复层(&amp;P)…</translation>
    </message>
    <message>
        <source>Make the selected layers a repeated block of several copies (one row in the editor)</source>
        <translation>将所选各层变为含多份副本的重复块（在编辑器中占一行）</translation>
    </message>
    <message>
        <source>Set &amp;Copies…</source>
        <translation>设置副本数(&amp;C)…</translation>
    </message>
    <message>
        <source>Change how many copies the selected repeated block has</source>
        <translation>更改所选重复块的副本数</translation>
    </message>
    <message>
        <source>U&amp;nrepeat Block</source>
        <translation>取消重复块(&amp;N)</translation>
    </message>
    <message>
        <source>Turn the selected repeated block back into plain layers (one copy)</source>
        <translation>将所选重复块还原为普通层（一份副本）</translation>
    </message>
    <message>
        <source>Estimate &amp;Assumptions…</source>
        <translation>估算假设(&amp;A)…</translation>
    </message>
    <message>
        <source>How it runs</source>
        <translation>运行方式</translation>
    </message>
    <message>
        <source>Samples per iteration (mini-batch size)</source>
        <translation>每次迭代的样本数（小批量大小）</translation>
    </message>
    <message>
        <source>fp32; fp16 / bf16 (16-bit everything); mixed (16-bit activations with fp32 master weights)</source>
        <translation type="vanished">fp32；fp16 / bf16（全部 16 位）；mixed（16 位激活，fp32 主权重）</translation>
    </message>
    <message>
        <source>How the step runs in PyTorch: fp32 (its defaults), strict fp32 or TF32; mixed precision with torch.autocast (fp16 with GradScaler, or bf16); or pure 16-bit weights</source>
        <translation>训练步在 PyTorch 中如何运行：fp32（默认设置）、严格 fp32 或 TF32；用 torch.autocast 的混合精度（fp16 配 GradScaler，或 bf16）；或纯 16 位权重</translation>
    </message>
    <message>
        <source>Optimizer state per parameter: SGD none, momentum one, Adam/AdamW two</source>
        <translation>每个参数的优化器状态：SGD 无，momentum 一份，Adam/AdamW 两份</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>Gradient checkpointing: keep only √n segment outputs and recompute the rest during backward (about a third more compute)</source>
        <translation>梯度检查点：只保留 √n 个分段的输出，反向传播时重新计算其余部分（计算量约多三分之一）</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批量</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>GPUs per machine (data parallel; the batch above is per GPU)</source>
        <translation>每台机器的 GPU 数（数据并行；上面的批量是每块 GPU 的）</translation>
    </message>
    <message>
        <source>Machines (nodes); between them the gradients cross the network</source>
        <translation>机器（节点）数；节点之间的梯度经网络传输</translation>
    </message>
    <message>
        <source>How the memory is shared out: DDP replicates everything; ZeRO 1/2/3 and FSDP split optimizer state, gradients and weights over the GPUs</source>
        <translation>显存如何分摊：DDP 全部复制；ZeRO 1/2/3 和 FSDP 把优化器状态、梯度和权重分到各 GPU 上</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点数</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Largest batch that fits in</source>
        <translation>最大批量，装入</translation>
    </message>
    <message>
        <source>A card&apos;s memory, as nvidia-smi shows it (GiB)</source>
        <translation>显卡的显存，按 nvidia-smi 的显示（GiB）</translation>
    </message>
    <message>
        <source>Assumptions…</source>
        <translation>假设…</translation>
    </message>
    <message>
        <source>Edit the figures the estimate takes on trust (CUDA context, workspace, allocator rounding)</source>
        <translation>编辑估算中凭经验取定的数值（CUDA 上下文、工作区、分配器取整）</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Insert</source>
        <translation>插入</translation>
    </message>
    <message>
        <source>Insert a layer before the selected one</source>
        <translation>在所选层之前插入一个层</translation>
    </message>
    <message>
        <source>Per-layer chart</source>
        <translation>逐层图表</translation>
    </message>
    <message>
        <source>Memory over the step</source>
        <translation>训练步骤内存曲线</translation>
    </message>
    <message>
        <source>Per-layer table</source>
        <translation>逐层表格</translation>
    </message>
    <message>
        <source>The article&apos;s accounting: for each layer, its output (activation) plus the error (the gradient of that output), at the batch and precision above; the input has no error. A framework keeps different tensors (see the per-layer table), so this is for checking the article&apos;s worked example, not for sizing a card.</source>
        <translation>文章的算法：每层的输出（激活）加上误差（该输出的梯度），按上面的批量和精度计算；输入层没有误差。框架实际保留的张量不同（见逐层表格），所以这里用于核对文章中的示例，而不是用来选卡。</translation>
    </message>
    <message>
        <source>Article&apos;s accounting</source>
        <translation>文章的算法</translation>
    </message>
    <message>
        <source>What each of the article&apos;s memory-reduction techniques would save on this network, largest saving first. Each throws information away or costs speed: read the caution. Apply is one undoable edit.</source>
        <translation>文章中每种显存削减技巧在这个网络上能节省多少，按节省量从大到小排列。每种技巧都会丢失信息或降低速度：请阅读注意事项。“应用”是一次可撤销的编辑。</translation>
    </message>
    <message>
        <source>What would help</source>
        <translation>有什么帮助</translation>
    </message>
    <message>
        <source>Fits on each card</source>
        <translation>每块显卡的适配</translation>
    </message>
    <message>
        <source>Every card of the catalog: does the plan fit, the largest batch, speed and price</source>
        <translation>目录中的每块显卡：方案能否装下、最大批量、速度和价格</translation>
    </message>
    <message>
        <source>Several GPUs</source>
        <translation>多块 GPU</translation>
    </message>
    <message>
        <source>The scaling curve over 1…N GPUs, and how many copies of the run one card holds</source>
        <translation>1…N 块 GPU 的扩展曲线，以及一块显卡能同时容纳多少份这个运行</translation>
    </message>
    <message>
        <source>Nothing to estimate yet: the plan has no layers</source>
        <translation>还没有可估计的内容：方案中没有层</translation>
    </message>
    <message numerus="yes">
        <source>Fix the %n problem(s) to see the estimate</source>
        <translation>
            <numerusform>修正这 %n 个问题后才能看到估算</numerusform>
        </translation>
    </message>
    <message>
        <source>Per GPU %1 on %5 GPUs (%6, global batch %7) · %2 parameters · largest batch in %3 GiB: %4</source>
        <translation>每块 GPU %1，共 %5 块 GPU（%6，全局批量 %7）· %2 个参数 · %3 GiB 内的最大批量：%4</translation>
    </message>
    <message>
        <source>Peak %1 · %2 parameters · largest batch in %3 GiB: %4</source>
        <translation>峰值 %1 · %2 个参数 · %3 GiB 内的最大批量：%4</translation>
    </message>
    <message>
        <source>Fix the errors in the draft to see what would help.</source>
        <translation>修正草稿中的错误后，才能看到有什么帮助。</translation>
    </message>
    <message>
        <source>None of the techniques would save memory on this network as it is set up.</source>
        <translation>按当前设置，这些技巧都不能为这个网络节省显存。</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>… and %1 more</source>
        <translation>…… 还有 %1 个</translation>
    </message>
    <message>
        <source>Nothing to estimate yet: the plan has no layers. Add one (Edit ▸ Add Layer), open a model or pick a preset.</source>
        <translation>还没有可估计的内容：方案中没有层。添加一层（编辑 ▸ 添加层）、打开一个模型或选择一个预设。</translation>
    </message>
    <message>
        <source>Fix the errors to see the estimate</source>
        <translation>修正错误后才能看到估算</translation>
    </message>
    <message>
        <source>Nothing to estimate yet</source>
        <translation>还没有可估计的内容</translation>
    </message>
    <message>
        <source>batch %1</source>
        <translation>批量 %1</translation>
    </message>
    <message>
        <source>not even batch 1</source>
        <translation>连批量 1 都装不下</translation>
    </message>
    <message>
        <source>The largest batch whose estimated peak fits in %1 with these settings</source>
        <translation type="vanished">在这些设置下，估计峰值能装进 %1 的最大批量</translation>
    </message>
    <message>
        <source> (per GPU, on %1 GPUs)</source>
        <translation> （每块 GPU，共 %1 块 GPU）</translation>
    </message>
    <message>
        <source>A layer of a repeated block cannot be added, removed or moved in one copy alone</source>
        <translation>重复块中的层不能只在一份副本中添加、删除或移动</translation>
    </message>
    <message>
        <source>Select the layers to repeat</source>
        <translation>请选择要重复的层</translation>
    </message>
    <message>
        <source>The selection is or crosses a repeated block</source>
        <translation>所选内容是重复块或跨越了重复块</translation>
    </message>
    <message>
        <source>Select a repeated block&apos;s row</source>
        <translation>请选择一个重复块所在的行</translation>
    </message>
    <message>
        <source>Repeat Layers</source>
        <translation>重复层</translation>
    </message>
    <message>
        <source>Copies of the %1 selected layers:</source>
        <translation>所选 %1 层的副本数：</translation>
    </message>
    <message>
        <source>Set Copies</source>
        <translation>设置副本数</translation>
    </message>
    <message>
        <source>Copies of block %1 (Unrepeat Block makes it one copy):</source>
        <translation>块 %1 的副本数（“取消重复块”可使其只剩一份）：</translation>
    </message>
    <message>
        <source>Add layer %1</source>
        <translation>添加第 %1 层</translation>
    </message>
    <message>
        <source>Duplicate layer %1</source>
        <translation>复制第 %1 层</translation>
    </message>
</context>
<context>
    <name>PriceDialog</name>
    <message>
        <source>Edit price — %1</source>
        <translation>编辑价格 — %1</translation>
    </message>
    <message>
        <source>where the figure comes from</source>
        <translation>数据来源</translation>
    </message>
    <message>
        <source>Latest known: new %1; used %2</source>
        <translation>已知最新：全新 %1；二手 %2</translation>
    </message>
    <message>
        <source>Month:</source>
        <translation>月份：</translation>
    </message>
    <message>
        <source>Price:</source>
        <translation>价格：</translation>
    </message>
    <message>
        <source>Condition:</source>
        <translation>成色：</translation>
    </message>
    <message>
        <source>Source:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <source>The price must be more than $0.</source>
        <translation>价格必须大于 $0。</translation>
    </message>
</context>
<context>
    <name>PriceHistoryTableModel</name>
    <message>
        <source>new</source>
        <translation>全新</translation>
    </message>
    <message>
        <source>used</source>
        <translation>二手</translation>
    </message>
    <message>
        <source>mixed condition</source>
        <translation>成色不一</translation>
    </message>
    <message>
        <source>launch price</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>sold</source>
        <translation>成交</translation>
    </message>
    <message>
        <source>asking</source>
        <translation>要价</translation>
    </message>
    <message>
        <source>list</source>
        <translation>标价</translation>
    </message>
    <message>
        <source>Date</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>USD</source>
        <translation>美元</translation>
    </message>
    <message>
        <source>Condition</source>
        <translation>成色</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
</context>
<context>
    <name>ProcessTableModel</name>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>the driver does not report per-process memory here</source>
        <translation>驱动在此不报告每个进程的显存</translation>
    </message>
    <message>
        <source>the owner could not be read</source>
        <translation>无法读取所有者</translation>
    </message>
</context>
<context>
    <name>RecommendationCard</name>
    <message>
        <source>↳ %1 (with pick %2)</source>
        <translation>↳ %1（配合第 %2 项）</translation>
    </message>
    <message>
        <source>Price source: %1</source>
        <translation>价格来源：%1</translation>
    </message>
    <message>
        <source>BUY</source>
        <translation>买入</translation>
    </message>
    <message>
        <source>KEEP</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>SELL</source>
        <translation>卖出</translation>
    </message>
    <message>
        <source>new</source>
        <translation>全新</translation>
    </message>
    <message>
        <source>used</source>
        <translation>二手</translation>
    </message>
    <message>
        <source>mixed condition</source>
        <translation>成色不一</translation>
    </message>
    <message>
        <source>launch price</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>asking</source>
        <translation>要价</translation>
    </message>
    <message>
        <source>price %1</source>
        <translation>价格 %1</translation>
    </message>
    <message>
        <source>net cost %1</source>
        <translation>净成本 %1</translation>
    </message>
    <message>
        <source>speed-up %1× %2</source>
        <translation>加速 %1× %2</translation>
    </message>
    <message>
        <source>speed-up %1× ±%2 %</source>
        <translation type="vanished">加速 %1× ±%2 %</translation>
    </message>
    <message>
        <source>speed-up %1×</source>
        <translation>加速 %1×</translation>
    </message>
    <message>
        <source>fits, batch up to %1</source>
        <translation>装得下，批量最多 %1</translation>
    </message>
    <message>
        <source>fits</source>
        <translation>装得下</translation>
    </message>
    <message>
        <source>does not fit</source>
        <translation>装不下</translation>
    </message>
    <message>
        <source>power %1/year</source>
        <translation>电费 %1/年</translation>
    </message>
    <message>
        <source>renting the same work %1–%2/h (%3, %4)</source>
        <translation>租用完成同样工作 %1–%2/小时（%3，%4）</translation>
    </message>
    <message>
        <source>break-even %1 months</source>
        <translation>%1 个月回本</translation>
    </message>
    <message>
        <source>supported</source>
        <translation>支持</translation>
    </message>
    <message>
        <source>legacy builds only</source>
        <translation>仅旧版构建</translation>
    </message>
    <message>
        <source>unsupported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <source>software: %1</source>
        <translation>软件：%1</translation>
    </message>
</context>
<context>
    <name>RecordingsDialog</name>
    <message>
        <source>Recordings</source>
        <translation>录制记录</translation>
    </message>
    <message>
        <source>Folder: {folder}</source>
        <translation type="vanished">文件夹：{folder}</translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <source>Replay</source>
        <translation>回放</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <source>keep forever</source>
        <translation>永久保留</translation>
    </message>
    <message>
        <source>Recordings older than this are deleted when the Monitor starts (0 keeps them all)</source>
        <translation>监视器启动时删除早于此期限的录制（0 = 全部保留）</translation>
    </message>
    <message>
        <source>Keep recordings for</source>
        <translation>录制保留期限</translation>
    </message>
    <message>
        <source>%1 file(s) could not be read and were skipped (see Status).</source>
        <translation>有 %1 个文件无法读取，已跳过（见“状态”）。</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>Exported %1 rows to %2</source>
        <translation>已将 %1 行导出到 %2</translation>
    </message>
    <message>
        <source>Delete %1? This cannot be undone.</source>
        <translation>删除 %1？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Could not delete: %1</source>
        <translation>无法删除：%1</translation>
    </message>
    <message>
        <source>Deleted %1</source>
        <translation>已删除 %1</translation>
    </message>
    <message>
        <source>{n} file(s) could not be read and were skipped (see Status).</source>
        <translation type="vanished">有 {n} 个文件无法读取，已跳过（见“状态”）。</translation>
    </message>
    <message>
        <source>No recordings yet: the Monitor records every session while it runs.</source>
        <translation>还没有录制：监视器运行时会录制每个会话。</translation>
    </message>
    <message>
        <source>The recording in progress cannot be deleted</source>
        <translation>不能删除正在进行的录制</translation>
    </message>
    <message>
        <source>Export recording as CSV</source>
        <translation>将录制导出为 CSV</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Export failed: {err}</source>
        <translation type="vanished">导出失败：{err}</translation>
    </message>
    <message>
        <source>Exported {n} rows to {path}</source>
        <translation type="vanished">已将 {n} 行导出到 {path}</translation>
    </message>
    <message>
        <source>Delete recording</source>
        <translation>删除录制</translation>
    </message>
    <message>
        <source>Delete {name}? This cannot be undone.</source>
        <translation type="vanished">删除 {name}？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Could not delete: {err}</source>
        <translation type="vanished">无法删除：{err}</translation>
    </message>
    <message>
        <source>Deleted {name}</source>
        <translation type="vanished">已删除 {name}</translation>
    </message>
</context>
<context>
    <name>RecordingsTableModel</name>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Cards</source>
        <translation>显卡</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>recording now</source>
        <translation>正在录制</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>skipped: %1</source>
        <translation>已跳过：%1</translation>
    </message>
    <message>
        <source>skipped: {reason}</source>
        <translation type="vanished">已跳过：{reason}</translation>
    </message>
</context>
<context>
    <name>ScalingView</name>
    <message>
        <source>The card the curve is drawn for (one kind of card; the link between cards is its PCIe or NVLink)</source>
        <translation>绘制曲线所用的显卡（同一种显卡；显卡之间通过 PCIe 或 NVLink 连接）</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数</translation>
    </message>
    <message>
        <source>speed-up (×)</source>
        <translation>加速比（×）</translation>
    </message>
    <message>
        <source>samples/s (typical)</source>
        <translation>样本/秒（典型）</translation>
    </message>
    <message>
        <source>ideal</source>
        <translation>理想</translation>
    </message>
    <message>
        <source>typical framework</source>
        <translation>典型框架</translation>
    </message>
    <message>
        <source>optimised code</source>
        <translation>优化代码</translation>
    </message>
    <message>
        <source>Card:</source>
        <translation>显卡：</translation>
    </message>
    <message>
        <source>Nothing to estimate yet: the plan has no layers.</source>
        <translation>还没有可估计的内容：方案中没有层。</translation>
    </message>
    <message>
        <source>Fix the errors in the draft to see how it scales.</source>
        <translation>修正草稿中的错误后，才能看到它的扩展情况。</translation>
    </message>
    <message>
        <source>On %1 × %2 (%3): %4× in a typical framework (%5), %6× in optimised code (%7).</source>
        <translation>在 %1 × %2（%3）上：典型框架 %4×（%5），优化代码 %6×（%7）。</translation>
    </message>
    <message>
        <source>Preview — on %1 × %2 (%3): %4× in a typical framework (%5), %6× in optimised code (%7). Set GPUs above 1 to plan it.</source>
        <translation>预览 — 在 %1 × %2（%3）上：典型框架 %4×（%5），优化代码 %6×（%7）。将 GPU 数设为大于 1 即可规划。</translation>
    </message>
    <message>
        <source>No card chosen.</source>
        <translation>未选择显卡。</translation>
    </message>
    <message>
        <source>Inference needs no gradient exchange: the cards scale almost ideally.</source>
        <translation>推理不需要交换梯度：多卡几乎是理想扩展。</translation>
    </message>
    <message>
        <source>Each card runs batch %1; the gradients (%2) are all-reduced every iteration.</source>
        <translation>每块显卡运行批量 %1；每次迭代都对梯度（%2）做 all-reduce。</translation>
    </message>
    <message>
        <source>On %1 × %2 (%3): %4× in a typical framework (%5 samples/s), %6× in optimised code (%7 samples/s).</source>
        <translation type="vanished">在 %1 × %2（%3）上：典型框架 %4×（%5 样本/秒），优化代码 %6×（%7 样本/秒）。</translation>
    </message>
    <message>
        <source>Preview — on %1 × %2 (%3): %4× in a typical framework (%5 samples/s), %6× in optimised code (%7 samples/s). Set GPUs above 1 to plan it.</source>
        <translation type="vanished">预览 — 在 %1 × %2（%3）上：典型框架 %4×（%5 样本/秒），优化代码 %6×（%7 样本/秒）。将 GPU 数设为大于 1 即可规划。</translation>
    </message>
    <message>
        <source>Several experiments: one run of this plan (%1) does not fit on a %2 (%3 usable).</source>
        <translation>多个实验：这个方案的一次运行（%1）装不进 %2（可用 %3）。</translation>
    </message>
    <message>
        <source>Several experiments: one copy of this run (%1) fits on a %2 (%3 usable) — several cards can instead run one experiment each.</source>
        <translation>多个实验：一块 %2（可用 %3）能装下一份这个运行（%1）— 也可以让多块显卡各跑一个实验。</translation>
    </message>
    <message>
        <source>Several experiments: %4 copies of this run (%1 each) fit on one %2 (%3 usable) — independent runs, no communication at all.</source>
        <translation>多个实验：一块 %2（可用 %3）能装下 %4 份这个运行（每份 %1）— 相互独立的运行，完全无需通信。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Display</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Monitor</source>
        <translation>监视器</translation>
    </message>
    <message>
        <source>Planner defaults</source>
        <translation>规划器默认值</translation>
    </message>
    <message>
        <source>Money</source>
        <translation>金额</translation>
    </message>
    <message>
        <source>Stored in %1</source>
        <translation>保存在 %1</translation>
    </message>
    <message>
        <source>A readable JSON file; window layout and recent files are kept next to it in gpu-planner.ini.</source>
        <translation>一个可读的 JSON 文件；窗口布局和最近打开的文件保存在它旁边的 gpu-planner.ini 中。</translation>
    </message>
    <message>
        <source>Put every field back to its default (nothing is saved until OK)</source>
        <translation>将所有字段恢复为默认值（点“确定”之前不会保存）</translation>
    </message>
    <message>
        <source>Binary: MiB, GiB (as nvidia-smi)</source>
        <translation>二进制：MiB、GiB（同 nvidia-smi）</translation>
    </message>
    <message>
        <source>Decimal: MB, GB</source>
        <translation>十进制：MB、GB</translation>
    </message>
    <message>
        <source>How memory sizes are shown. Binary: 1 GiB = 1024³ bytes, the way nvidia-smi and PyTorch report memory. Decimal: 1 GB = 10⁹ bytes, the way cards are sold.</source>
        <translation>显存大小的显示方式。二进制：1 GiB = 1024³ 字节，与 nvidia-smi 和 PyTorch 报告的一致。十进制：1 GB = 10⁹ 字节，与显卡销售标称一致。</translation>
    </message>
    <message>
        <source>Same as the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Colours of the windows and plots</source>
        <translation>窗口和图表的配色</translation>
    </message>
    <message>
        <source>English</source>
        <translation>English</translation>
    </message>
    <message>
        <source>简体中文 (Simplified Chinese)</source>
        <translation>简体中文</translation>
    </message>
    <message>
        <source>Language of the interface; your open plan is kept when it changes</source>
        <translation>界面语言；切换时你打开的方案会保留</translation>
    </message>
    <message>
        <source>&amp;Units:</source>
        <translation>单位(&amp;U)：</translation>
    </message>
    <message>
        <source>&amp;Theme:</source>
        <translation>主题(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>Seconds between two readings of the cards (%1–%2 s). Shorter shows brief spikes; longer costs less.</source>
        <translation>两次读取显卡之间的秒数（%1–%2 秒）。越短越能看到短暂的尖峰；越长开销越小。</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>Warn when a card&apos;s memory in use reaches this share of its total (50–100 %)</source>
        <translation>显卡已用显存达到总量的这一比例时发出警告（50–100 %）</translation>
    </message>
    <message>
        <source> °C</source>
        <translation> °C</translation>
    </message>
    <message>
        <source>Warn when a card&apos;s temperature reaches this (40–110 °C)</source>
        <translation>显卡温度达到此值时发出警告（40–110 °C）</translation>
    </message>
    <message>
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <source>Recordings older than this are deleted when the monitor starts; 0 keeps them forever</source>
        <translation>监视器启动时删除早于此期限的录制；0 = 永久保留</translation>
    </message>
    <message>
        <source>keep forever</source>
        <translation>永久保留</translation>
    </message>
    <message>
        <source>Sampling &amp;interval:</source>
        <translation>采样间隔(&amp;I)：</translation>
    </message>
    <message>
        <source>&amp;Memory alert at:</source>
        <translation>显存报警阈值(&amp;M)：</translation>
    </message>
    <message>
        <source>T&amp;emperature alert at:</source>
        <translation>温度报警阈值(&amp;E)：</translation>
    </message>
    <message>
        <source>&amp;Keep recordings for:</source>
        <translation>录制保留期限(&amp;K)：</translation>
    </message>
    <message>
        <source>The batch size a new plan starts with (1–%1)</source>
        <translation>新方案的初始批量大小（1–%1）</translation>
    </message>
    <message>
        <source>FP32 (32-bit float)</source>
        <translation type="vanished">FP32（32 位浮点）</translation>
    </message>
    <message>
        <source>FP16 (16-bit float)</source>
        <translation type="vanished">FP16（16 位浮点）</translation>
    </message>
    <message>
        <source>BF16 (bfloat16)</source>
        <translation type="vanished">BF16（bfloat16）</translation>
    </message>
    <message>
        <source>Mixed (FP16 compute, FP32 master weights)</source>
        <translation type="vanished">混合精度（FP16 计算，FP32 主权重）</translation>
    </message>
    <message>
        <source>Mixed BF16 (autocast, FP32 master weights)</source>
        <translation type="vanished">混合 BF16（autocast，FP32 主权重）</translation>
    </message>
    <message>
        <source>FP32 strict (TF32 off)</source>
        <translation type="vanished">严格 FP32（关闭 TF32）</translation>
    </message>
    <message>
        <source>TF32 (convolutions and matmuls)</source>
        <translation type="vanished">TF32（卷积和矩阵乘法）</translation>
    </message>
    <message>
        <source>The number format a new plan starts with</source>
        <translation>新方案的初始数值格式</translation>
    </message>
    <message>
        <source>SGD (no state)</source>
        <translation>SGD（无状态）</translation>
    </message>
    <message>
        <source>SGD with momentum (1 state per weight)</source>
        <translation>带 momentum 的 SGD（每个权重 1 份状态）</translation>
    </message>
    <message>
        <source>Adam (2 states per weight)</source>
        <translation>Adam（每个权重 2 份状态）</translation>
    </message>
    <message>
        <source>AdamW (2 states per weight)</source>
        <translation>AdamW（每个权重 2 份状态）</translation>
    </message>
    <message>
        <source>The optimizer a new plan starts with; its state is part of the memory estimate</source>
        <translation>新方案的初始优化器；其状态计入显存估算</translation>
    </message>
    <message>
        <source>These apply to new plans; open plans keep their own.</source>
        <translation>这些设置用于新方案；已打开的方案保持各自的设置。</translation>
    </message>
    <message>
        <source>&amp;Batch size:</source>
        <translation>批量大小(&amp;B)：</translation>
    </message>
    <message>
        <source>&amp;Precision:</source>
        <translation>精度(&amp;P)：</translation>
    </message>
    <message>
        <source>&amp;Optimizer:</source>
        <translation>优化器(&amp;O)：</translation>
    </message>
    <message>
        <source>The currency prices are shown in. Prices are kept in US dollars and converted with the rate below.</source>
        <translation>价格显示所用的货币。价格以美元保存，并按下面的汇率换算。</translation>
    </message>
    <message>
        <source>The sign written before amounts, e.g. ¥ or €</source>
        <translation>金额前显示的符号，例如 ¥ 或 €</translation>
    </message>
    <message>
        <source>not set (show US dollars)</source>
        <translation>未设置（显示美元）</translation>
    </message>
    <message>
        <source>How many units of the chosen currency one US dollar buys, e.g. 7.2 for CNY. Without a rate, prices stay in US dollars.</source>
        <translation>1 美元可兑换多少所选货币，例如人民币为 7.2。没有汇率时，价格仍以美元显示。</translation>
    </message>
    <message>
        <source> per kWh</source>
        <translation> /千瓦时</translation>
    </message>
    <message>
        <source>not set (energy not counted)</source>
        <translation>未设置（不计电费）</translation>
    </message>
    <message>
        <source>What a kilowatt-hour costs you, in US dollars; used for running costs. 0 leaves energy out.</source>
        <translation>每千瓦时的电价（美元）；用于运行成本。0 表示不计电费。</translation>
    </message>
    <message>
        <source>&amp;Currency:</source>
        <translation>货币(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Symbol:</source>
        <translation>符号(&amp;S)：</translation>
    </message>
    <message>
        <source>&amp;Rate per US dollar:</source>
        <translation>每美元汇率(&amp;R)：</translation>
    </message>
    <message>
        <source>&amp;Electricity price:</source>
        <translation>电价(&amp;E)：</translation>
    </message>
    <message>
        <source>units</source>
        <translation>单位</translation>
    </message>
    <message>
        <source>theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>sampling interval</source>
        <translation>采样间隔</translation>
    </message>
    <message>
        <source>memory alert</source>
        <translation>显存报警</translation>
    </message>
    <message>
        <source>temperature alert</source>
        <translation>温度报警</translation>
    </message>
    <message>
        <source>recording retention</source>
        <translation>录制保留期限</translation>
    </message>
    <message>
        <source>default batch size</source>
        <translation>默认批量大小</translation>
    </message>
    <message>
        <source>default precision</source>
        <translation>默认精度</translation>
    </message>
    <message>
        <source>default optimizer</source>
        <translation>默认优化器</translation>
    </message>
    <message>
        <source>currency</source>
        <translation>货币</translation>
    </message>
    <message>
        <source>currency symbol</source>
        <translation>货币符号</translation>
    </message>
    <message>
        <source>exchange rate</source>
        <translation>汇率</translation>
    </message>
    <message>
        <source>electricity price</source>
        <translation>电价</translation>
    </message>
    <message>
        <source>first run</source>
        <translation>首次运行</translation>
    </message>
    <message>
        <source>Your settings file was damaged, so the default settings are in use. The old file was kept as %1.</source>
        <translation>你的设置文件已损坏，现在使用默认设置。旧文件已另存为 %1。</translation>
    </message>
    <message>
        <source>Some settings were not valid and are back to their defaults: %1.</source>
        <translation>部分设置无效，已恢复为默认值：%1。</translation>
    </message>
</context>
<context>
    <name>StepChart</name>
    <message>
        <source>allocated by tensors (MiB)</source>
        <translation>张量占用 (MiB)</translation>
    </message>
    <message>
        <source>step: forward, loss, backward (layers in reverse), optimizer</source>
        <translation>步骤：前向、损失、反向（逆序逐层）、优化器</translation>
    </message>
    <message>
        <source>tensors&apos; peak %1 at %2 (%3), dashed line</source>
        <translation>张量峰值 %1，位于 %2（%3），见虚线</translation>
    </message>
</context>
<context>
    <name>SuggestionTableModel</name>
    <message>
        <source>Technique and caution</source>
        <translation>技巧与注意事项</translation>
    </message>
    <message>
        <source>Saves</source>
        <translation>节省</translation>
    </message>
    <message>
        <source>New peak</source>
        <translation>新峰值</translation>
    </message>
</context>
<context>
    <name>Welcome</name>
    <message>
        <source>&lt;h3&gt;Welcome to GPU Planner&lt;/h3&gt;</source>
        <translation>&lt;h3&gt;欢迎使用 GPU Planner&lt;/h3&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Draft a network and see the memory it needs to train, how it fits and runs on every NVIDIA card, what to buy or sell, and what your cards do live.&lt;/p&gt;</source>
        <translation>&lt;p&gt;起草一个网络，查看它训练所需的显存、在每块 NVIDIA 显卡上能否装下和跑得多快、该买什么或卖什么，以及你的显卡实时在做什么。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Simulated cards&lt;/b&gt; are shown in the Monitor (demo mode): %1.&lt;/p&gt;</source>
        <translation>&lt;p&gt;监视器中显示的是&lt;b&gt;模拟显卡&lt;/b&gt;（演示模式）：%1。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Found on this computer:&lt;/b&gt; %1. They count as your cards in the fit table and the Advisor.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;在本机找到：&lt;/b&gt;%1。它们在适配表和购买顾问中算作你的显卡。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The Monitor can show a simulated demo instead.</source>
        <translation>监视器也可以改为显示模拟演示。</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Your data (catalog overrides, autosave)</source>
        <translation>你的数据（目录覆盖、自动保存）</translation>
    </message>
    <message>
        <source>Recordings</source>
        <translation>录制记录</translation>
    </message>
    <message>
        <source>Where files are kept:</source>
        <translation>文件保存位置：</translation>
    </message>
    <message>
        <source>&lt;p&gt;Ctrl+1…4 switch between Planner, Monitor, Catalog and Advisor; Edit ▸ Preferences… sets units, theme, sampling and defaults.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Ctrl+1…4 在规划器、监视器、显卡目录和购买顾问之间切换；编辑 ▸ 首选项… 可设置单位、主题、采样和默认值。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Welcome to GPU Planner</source>
        <translation>欢迎使用 GPU Planner</translation>
    </message>
</context>
<context>
    <name>catalog</name>
    <message>
        <source>launch</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>asking</source>
        <translation>要价</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Chip</source>
        <translation>芯片</translation>
    </message>
    <message>
        <source>Segment</source>
        <translation>细分市场</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <source>Memory (GiB)</source>
        <translation>显存（GiB）</translation>
    </message>
    <message>
        <source>Fast memory (GiB)</source>
        <translation>高速显存（GiB）</translation>
    </message>
    <message>
        <source>Memory type</source>
        <translation>显存类型</translation>
    </message>
    <message>
        <source>Bus width (bit)</source>
        <translation>位宽（bit）</translation>
    </message>
    <message>
        <source>Memory data rate (Gbps)</source>
        <translation>显存数据速率（Gbps）</translation>
    </message>
    <message>
        <source>Bandwidth (GB/s)</source>
        <translation>带宽（GB/s）</translation>
    </message>
    <message>
        <source>CUDA cores</source>
        <translation>CUDA 核心</translation>
    </message>
    <message>
        <source>Boost clock (MHz)</source>
        <translation>加速频率（MHz）</translation>
    </message>
    <message>
        <source>FP32 (TFLOPS)</source>
        <translation>FP32（TFLOPS）</translation>
    </message>
    <message>
        <source>FP16 (TFLOPS)</source>
        <translation>FP16（TFLOPS）</translation>
    </message>
    <message>
        <source>Tensor cores</source>
        <translation>张量核心</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>FP16 tensor (TFLOPS, dense)</source>
        <translation>FP16 张量（TFLOPS，稠密）</translation>
    </message>
    <message>
        <source>FP16 tensor, FP32 accumulate (TFLOPS)</source>
        <translation>FP16 张量，FP32 累加（TFLOPS）</translation>
    </message>
    <message>
        <source>BF16 tensor (TFLOPS)</source>
        <translation>BF16 张量（TFLOPS）</translation>
    </message>
    <message>
        <source>TF32 tensor (TFLOPS, dense)</source>
        <translation>TF32 张量（TFLOPS，稠密）</translation>
    </message>
    <message>
        <source>INT8 (TOPS)</source>
        <translation>INT8（TOPS）</translation>
    </message>
    <message>
        <source>TDP (W)</source>
        <translation>TDP（W）</translation>
    </message>
    <message>
        <source>PCIe generation</source>
        <translation>PCIe 代数</translation>
    </message>
    <message>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <source>Release</source>
        <translation>发布</translation>
    </message>
    <message>
        <source>Launch price (USD)</source>
        <translation>首发价格（美元）</translation>
    </message>
    <message>
        <source>Latest new price</source>
        <translation>最新全新价</translation>
    </message>
    <message>
        <source>Latest used price</source>
        <translation>最新二手价</translation>
    </message>
    <message>
        <source>Software support</source>
        <translation>软件支持</translation>
    </message>
    <message>
        <source>Your own price</source>
        <translation>您自己的价格</translation>
    </message>
    <message>
        <source>$%1 per GPU-hour ($%2 an hour for %3 GPUs)</source>
        <translation>每 GPU 小时 $%1（%3 个 GPU 每小时 $%2）</translation>
    </message>
    <message>
        <source>$%1 per GPU-hour</source>
        <translation>每 GPU 小时 $%1</translation>
    </message>
    <message>
        <source>date (observed)</source>
        <translation>日期（观测）</translation>
    </message>
    <message>
        <source>price (USD)</source>
        <translation>价格（美元）</translation>
    </message>
    <message>
        <source>USD/GPU-h</source>
        <translation>美元/GPU 小时</translation>
    </message>
    <message>
        <source>new</source>
        <translation>全新</translation>
    </message>
    <message>
        <source>used</source>
        <translation>二手</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>成色不一</translation>
    </message>
    <message>
        <source>launch price</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>Select a card to see its price history.</source>
        <translation>选择一张显卡以查看其价格历史。</translation>
    </message>
    <message>
        <source>No dated price is known for this card: none is shown rather than a guess. Import your own (Import prices…) or enter one (Edit price…).</source>
        <translation>这张显卡没有已知的按日期价格：宁可不显示也不猜测。可导入您自己的价格（导入价格…）或输入一个（编辑价格…）。</translation>
    </message>
    <message>
        <source>%1 figures in other currencies (%2) are in the exported history, not on this dollar axis.</source>
        <translation>%1 个其他货币（%2）的数字在导出的历史中，不在此美元坐标轴上。</translation>
    </message>
    <message>
        <source>%1 of the prices are asking prices (listings), not sales.</source>
        <translation>其中 %1 个价格是要价（挂牌），不是成交价。</translation>
    </message>
    <message>
        <source>Price lists (*.csv);;All files (*)</source>
        <translation>价格表 (*.csv);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>core</name>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>judged on your plan ({plan}): its peak planned on each card and its speed; budget {budget}; price weight {weight:g}</source>
        <translation>按你的方案（{plan}）评判：在每张卡上规划的峰值及其速度；预算 {budget}；价格权重 {weight:g}</translation>
    </message>
    <message>
        <source>judged on {workload} (since {since}), memory planned on each card; budget {budget}; price weight {weight:g}</source>
        <translation>按 {workload} 评估（自 {since} 年起），显存在每块显卡上规划；预算 {budget}；价格权重 {weight:g}</translation>
    </message>
    <message>
        <source>needs {memory:g} GB; budget {budget}; price weight {weight:g} (1 = speed per dollar, 0 = speed only); speed measured on {workload} at batch {batch}</source>
        <translation>需要 {memory:g} GB 显存；预算 {budget}；价格权重 {weight:g}（1 = 每美元的速度，0 = 只看速度）；速度按 {workload}、批量大小 {batch} 测算</translation>
    </message>
    <message>
        <source>Starting out seriously</source>
        <translation>认真入门</translation>
    </message>
    <message>
        <source>A first card to learn on; sell it later and buy what fits your direction.</source>
        <translation>用来学习的第一块显卡；以后卖掉，再买适合你方向的显卡。</translation>
    </message>
    <message>
        <source>Tight budget (little money)</source>
        <translation>预算紧张（钱不多）</translation>
    </message>
    <message>
        <source>The most speed per dollar with enough memory for most work.</source>
        <translation>每美元速度最高，显存足以应付大多数工作。</translation>
    </message>
    <message>
        <source>Almost no money</source>
        <translation>几乎没钱</translation>
    </message>
    <message>
        <source>The cheapest card that still trains CNNs.</source>
        <translation>仍能训练 CNN 的最便宜显卡。</translation>
    </message>
    <message>
        <source>Kaggle (ordinary competitions)</source>
        <translation>Kaggle（普通比赛）</translation>
    </message>
    <message>
        <source>Ordinary competitions: small data sets, many quick experiments.</source>
        <translation>普通比赛：数据集小，需要大量快速实验。</translation>
    </message>
    <message>
        <source>Deep-learning competitions</source>
        <translation>深度学习比赛</translation>
    </message>
    <message>
        <source>Competitions where large networks win: speed matters, within reason.</source>
        <translation>大型网络获胜的比赛：速度很重要，但要在合理范围内。</translation>
    </message>
    <message>
        <source>Computer-vision research</source>
        <translation>计算机视觉研究</translation>
    </message>
    <message>
        <source>ImageNet-scale state of the art needs at least 12 GB.</source>
        <translation>ImageNet 规模的最先进模型至少需要 12 GB。</translation>
    </message>
    <message>
        <source>NLP research</source>
        <translation>自然语言处理研究</translation>
    </message>
    <message>
        <source>Recurrent networks; 8 GB does for most (check your model&apos;s memory).</source>
        <translation>循环神经网络；大多数情况下 8 GB 足够（请检查你模型的显存）。</translation>
    </message>
    <message>
        <source>Data sets over 250 GB</source>
        <translation>超过 250 GB 的数据集</translation>
    </message>
    <message>
        <source>Large data sets want large networks: a 12 GB card.</source>
        <translation>大型数据集需要大型网络：一块 12 GB 的显卡。</translation>
    </message>
    <message>
        <source>The best regardless of cost</source>
        <translation>不计成本的最佳选择</translation>
    </message>
    <message>
        <source>Speed first; price only breaks near-ties.</source>
        <translation>速度优先；价格只在速度相近时才起作用。</translation>
    </message>
    <message>
        <source>Cost-efficient (but expensive)</source>
        <translation>高性价比（但较贵）</translation>
    </message>
    <message>
        <source>Fast cards that are still good value.</source>
        <translation>快速且仍然物有所值的显卡。</translation>
    </message>
    <message>
        <source>Cost-efficient and cheap</source>
        <translation>高性价比且便宜</translation>
    </message>
    <message>
        <source>The best value among cheap cards.</source>
        <translation>便宜显卡中性价比最高的。</translation>
    </message>
    <message>
        <source>Several GPUs</source>
        <translation>多块 GPU</translation>
    </message>
    <message>
        <source>Two cards for parallel training or two experiments at once.</source>
        <translation>两块显卡用于并行训练，或同时跑两个实验。</translation>
    </message>
    <message>
        <source>no profile named &apos;{key}&apos;; did you mean {names}?</source>
        <translation>没有名为“{key}”的使用场景；您是指 {names} 吗？</translation>
    </message>
    <message>
        <source>no profile named &apos;{key}&apos;</source>
        <translation>没有名为“{key}”的使用场景</translation>
    </message>
    <message>
        <source>as-of must be a month YYYY-MM, not &apos;{as_of}&apos;</source>
        <translation>日期必须是 YYYY-MM 格式的月份，而不是“{as_of}”</translation>
    </message>
    <message>
        <source>price basis must be new, used or both</source>
        <translation>价格依据必须是全新、二手或两者</translation>
    </message>
    <message>
        <source>budget must be a positive amount</source>
        <translation>预算必须是正数</translation>
    </message>
    <message>
        <source>your {name}</source>
        <translation>你的 {name}</translation>
    </message>
    <message>
        <source>{workload} (the profile&apos;s workload since {since})</source>
        <translation>{workload}（该配置自 {since} 年起的工作负载）</translation>
    </message>
    <message>
        <source>{name} (the profile&apos;s reference workload)</source>
        <translation>{name}（该用途的参考负载）</translation>
    </message>
    <message>
        <source>the plan has errors: {why}</source>
        <translation>方案有错误：{why}</translation>
    </message>
    <message>
        <source>the plan has no layers</source>
        <translation>方案中没有层</translation>
    </message>
    <message>
        <source>unknown card &apos;{name}&apos;; did you mean {names}?</source>
        <translation>未知的显卡“{name}”；您是指 {names} 吗？</translation>
    </message>
    <message>
        <source>unknown card &apos;{name}&apos;</source>
        <translation>未知的显卡“{name}”</translation>
    </message>
    <message>
        <source>No used price is known for your {card} as of {date}, so the net costs do not subtract its sale: add what it fetches in the Catalog pane (Edit price…).</source>
        <translation>截至 {date}，没有你的 {card} 的二手价格，所以净花费没有扣除卖掉它的收入：可在“显卡目录”页（编辑价格…）填上它能卖的价钱。</translation>
    </message>
    <message>
        <source>Left out: {cards} — SXM modules that come only inside NVIDIA&apos;s multi-GPU servers, not as cards for a PC.</source>
        <translation>未列入：{cards}——这些是只装在 NVIDIA 多 GPU 服务器里的 SXM 模块，不是能装进个人电脑的显卡。</translation>
    </message>
    <message>
        <source>Your {card} does not fit {label} at batch {batch} (peak {peak}).</source>
        <translation>你的 {card} 放不下批量大小为 {batch} 的{label}（峰值 {peak}）。</translation>
    </message>
    <message>
        <source>Keep your {card}: the best buy within your budget, {best}, is only {speedup:.2f}× as fast on {label} (less than the {min:g}× worth the money and the trouble).</source>
        <translation>保留你的 {card}：预算内最值得买的 {best} 在{label}上只快 {speedup:.2f} 倍（不到值得花钱折腾的 {min:g} 倍）。</translation>
    </message>
    <message>
        <source>Keep your {card}: nothing within your budget fits {label} and is faster.</source>
        <translation>保留你的 {card}：预算内没有既能放下{label}又更快的显卡。</translation>
    </message>
    <message>
        <source>Sell your {card} for about {price} (used price, {date}) when the {new} arrives.</source>
        <translation>{new} 到手后，把你的 {card} 以约 {price}（二手价，{date}）卖掉。</translation>
    </message>
    <message>
        <source>Sell your {card} when the {new} arrives.</source>
        <translation>{new} 到手后，把你的 {card} 卖掉。</translation>
    </message>
    <message>
        <source>Every card that fits and is priced as of {date} within {budget} is slower than your {card}.</source>
        <translation>截至 {date}、{budget} 以内有报价且放得下的显卡都比你的 {card} 慢。</translation>
    </message>
    <message>
        <source>Every card that fits and is priced as of {date} is slower than your {card}.</source>
        <translation>截至 {date} 有报价且放得下的显卡都比你的 {card} 慢。</translation>
    </message>
    <message>
        <source>{peak} for {label}</source>
        <translation>{label}所需的 {peak}</translation>
    </message>
    <message>
        <source>No card priced as of {date} has {need} within {budget}.</source>
        <translation>截至 {date}，{budget} 以内没有一张有报价的显卡具备{need}。</translation>
    </message>
    <message>
        <source>No card priced as of {date} has {need}.</source>
        <translation>截至 {date}，没有一张有报价的显卡具备{need}。</translation>
    </message>
    <message>
        <source>Several GPUs: two cards train this network about {speedup:.1f}× as fast as one (the article: four give 2.5–3× in most frameworks, 3.6–3.8× in optimised research code; dense networks gain much less) — or run two experiments at once.</source>
        <translation>多 GPU：两张卡训练这个网络约为一张卡的 {speedup:.1f} 倍（原文：四张卡在多数框架中约 2.5–3 倍，在优化过的研究代码中约 3.6–3.8 倍；密集网络的加速要小得多）——也可以同时跑两个实验。</translation>
    </message>
    <message>
        <source>Memory: a card qualifies when your plan&apos;s estimated peak ({peak}) fits its usable memory (its memory less the driver&apos;s reserve); the profile&apos;s {memory:g} GB is not used.</source>
        <translation>显存：你的计划的估计峰值（{peak}）装得进显卡的可用显存（显存减去驱动保留）时，该卡才符合条件；不使用方案的 {memory:g} GB。</translation>
    </message>
    <message>
        <source>Your plan trains on {world} GPUs ({strategy}): each option is {world} of a card, its fit judged per GPU (peak {peak} on each, batch per GPU) and its speed that of all {world}, as in the fit table.</source>
        <translation>您的方案在 {world} 块 GPU 上训练（{strategy}）：每个选项是 {world} 块同一显卡，是否放得下按每块 GPU 判断（每块峰值 {peak}，批量按每块 GPU 计），速度为全部 {world} 块合计，与适配表一致。</translation>
    </message>
    <message>
        <source>{name}: fits {label} up to batch {batch} per GPU in {precision}</source>
        <translation>{name}：以{precision}可放下{label}，每块 GPU 批量大小最多 {batch}</translation>
    </message>
    <message>
        <source>{speedup:.1f}× your {card} (±{band} %)</source>
        <translation type="vanished">是你的 {card} 的 {speedup:.1f} 倍（±{band} %）</translation>
    </message>
    <message>
        <source>{speed:,.0f} samples/s ±{band} %</source>
        <translation type="vanished">{speed:,.0f} 样本/秒 ±{band} %</translation>
    </message>
    <message>
        <source>{price} each</source>
        <translation>每张 {price}</translation>
    </message>
    <message>
        <source>Several GPUs: two cards train one convolutional network about {speedup:g}× as fast as one in optimised code (the article: four give 2.5–3× in most frameworks, 3.6–3.8× in optimised research code; dense networks gain much less) — or run two experiments at once.</source>
        <translation type="vanished">多 GPU：在优化过的代码里，两张卡训练一个卷积网络约为一张卡的 {speedup:g} 倍（原文：四张卡在多数框架中约 2.5–3 倍，在优化过的研究代码中约 3.6–3.8 倍；密集网络的加速要小得多）——也可以同时跑两个实验。</translation>
    </message>
    <message>
        <source>Speed is measured on {label}; draft your own network for advice on it.</source>
        <translation>速度按{label}测算；草拟你自己的网络可得到针对它的建议。</translation>
    </message>
    <message>
        <source>{p0}.</source>
        <translation>{p0}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}.</source>
        <translation>{p0}，{p1}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}.</source>
        <translation>{p0}，{p1}，{p2}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}, {p3}.</source>
        <translation>{p0}，{p1}，{p2}，{p3}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}, {p3}, {p4}.</source>
        <translation>{p0}，{p1}，{p2}，{p3}，{p4}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}, {p3}, {p4}, {p5}.</source>
        <translation>{p0}，{p1}，{p2}，{p3}，{p4}，{p5}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}.</source>
        <translation>{p0}，{p1}，{p2}，{p3}，{p4}，{p5}，{p6}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}, {p7}.</source>
        <translation>{p0}，{p1}，{p2}，{p3}，{p4}，{p5}，{p6}，{p7}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}, {p7}, {p8}.</source>
        <translation>{p0}，{p1}，{p2}，{p3}，{p4}，{p5}，{p6}，{p7}，{p8}。</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}, {p3}, {p4}, {p5}, {p6}, {p7}, {p8}, {p9}.</source>
        <translation>{p0}，{p1}，{p2}，{p3}，{p4}，{p5}，{p6}，{p7}，{p8}，{p9}。</translation>
    </message>
    <message>
        <source>mixed precision</source>
        <translation>混合精度</translation>
    </message>
    <message>
        <source>{name}: fits {label} up to batch {batch} in {precision}</source>
        <translation>{name}：以{precision}可放下{label}，批量大小最多 {batch}</translation>
    </message>
    <message>
        <source>{name}: fits {label}</source>
        <translation>{name}：放得下{label}</translation>
    </message>
    <message>
        <source>{speedup:.1f}× your {card} ({band})</source>
        <translation>是你的 {card} 的 {speedup:.1f} 倍（{band}）</translation>
    </message>
    <message>
        <source>{speedup:.1f}× your {card}</source>
        <translation>是你的 {card} 的 {speedup:.1f} 倍</translation>
    </message>
    <message>
        <source>{speed:,.0f} samples/s</source>
        <translation type="vanished">{speed:,.0f} 样本/秒</translation>
    </message>
    <message>
        <source>new</source>
        <translation>全新</translation>
    </message>
    <message>
        <source>used</source>
        <translation>二手</translation>
    </message>
    <message>
        <source>mixed condition</source>
        <translation>成色不一</translation>
    </message>
    <message>
        <source>sold</source>
        <translation>成交</translation>
    </message>
    <message>
        <source>asking</source>
        <translation>要价</translation>
    </message>
    <message>
        <source>list</source>
        <translation>标价</translation>
    </message>
    <message>
        <source>rental per hour</source>
        <translation>按小时租用</translation>
    </message>
    <message>
        <source>{file}: not a price list: the columns {columns} are missing (needed: {needed})</source>
        <translation>{file}：不是价格表：缺少列 {columns}（需要：{needed}）</translation>
    </message>
    <message>
        <source>Your prices file {path} could not be read ({error}) and could not be moved aside either ({move}); your own prices are not shown.</source>
        <translation>无法读取您的价格文件 {path}（{error}），也无法将其移到一旁（{move}）；不显示您自己的价格。</translation>
    </message>
    <message>
        <source>Your prices file could not be read ({error}). It was moved aside to {aside}; the shipped prices are used, and your own are not shown until you import them again.</source>
        <translation>无法读取您的价格文件（{error}）。它已被移到 {aside}；现使用内置价格，在您重新导入之前不显示您自己的价格。</translation>
    </message>
    <message>
        <source>{count} of your saved prices are not shown: {first}</source>
        <translation>您保存的价格中有 {count} 条未显示：{first}</translation>
    </message>
    <message>
        <source>{file}: no row could be used ({count} rejected){first}</source>
        <translation>{file}：没有可用的行（{count} 行被拒绝）{first}</translation>
    </message>
    <message>
        <source>this month</source>
        <translation>本月</translation>
    </message>
    <message>
        <source>1 month old</source>
        <translation>1 个月前</translation>
    </message>
    <message>
        <source>{n} months old</source>
        <translation>{n} 个月前</translation>
    </message>
    <message>
        <source>{price} each {condition} ({date})</source>
        <translation type="vanished">每张 {price}，{condition}（{date}）</translation>
    </message>
    <message>
        <source>{price} {condition} ({date})</source>
        <translation type="vanished">{price}，{condition}（{date}）</translation>
    </message>
    <message>
        <source>{price} less ~{resale} for your {card} used = {net} net</source>
        <translation>{price} 减去你的二手 {card} 约 {resale} = 净支出 {net}</translation>
    </message>
    <message>
        <source>{price} = {net}</source>
        <translation>{price} = {net}</translation>
    </message>
    <message>
        <source>~{cost} a year in electricity</source>
        <translation>每年电费约 {cost}</translation>
    </message>
    <message>
        <source>current software supports it only through legacy builds</source>
        <translation>当前软件只能通过旧版构建支持它</translation>
    </message>
    <message>
        <source>{speed} tokens/s ±{band} %</source>
        <translation type="vanished">{speed} 词元/秒 ±{band} %</translation>
    </message>
    <message>
        <source>{speed} tokens/s</source>
        <translation type="vanished">{speed} 词元/秒</translation>
    </message>
    <message>
        <source>{speed} samples/s ±{band} %</source>
        <translation type="vanished">{speed} 样本/秒 ±{band} %</translation>
    </message>
    <message>
        <source>{speed} samples/s</source>
        <translation type="vanished">{speed} 样本/秒</translation>
    </message>
    <message>
        <source>current CUDA and PyTorch no longer support it</source>
        <translation>当前的 CUDA 和 PyTorch 已不再支持它</translation>
    </message>
    <message>
        <source>only its first 3.5 GB are fast</source>
        <translation>只有前 3.5 GB 是高速显存</translation>
    </message>
    <message>
        <source>a data-centre card, usually without a fan of its own: in a PC it needs added cooling</source>
        <translation>这是数据中心卡，通常自身不带风扇：装在个人电脑里需要另加散热</translation>
    </message>
    <message>
        <source>pays for itself against ${hourly:g}/h cloud in {months:g} months</source>
        <translation>相对每小时 ${hourly:g} 的云 GPU，{months:g} 个月回本</translation>
    </message>
    <message>
        <source>renting it costs ${cheapest:.2f}/h at the cheapest ({provider}, {date}), ${median:.2f}/h the median of {offers} offers</source>
        <translation>租用它最低每小时 ${cheapest:.2f}（{provider}，{date}），{offers} 个报价的中位数每小时 ${median:.2f}</translation>
    </message>
    <message>
        <source>renting the same work on {card} ({speed:.2g}× as fast on it) costs ${cheapest:.2f} per hour of this card&apos;s work at the cheapest ({provider}, {date}), ${median:.2f} at the median of {offers} offers</source>
        <translation>在 {card} 上租用完成同样的工作（其速度为 {speed:.2g} 倍），按本卡每小时的工作量计最低 ${cheapest:.2f}（{provider}，{date}），{offers} 个报价的中位数 ${median:.2f}</translation>
    </message>
    <message>
        <source>{head}: renting costs less than running it, buying never pays off</source>
        <translation>{head}：租用比自己运行更便宜，购买永远不划算</translation>
    </message>
    <message>
        <source>{head}: buying pays off after {median:,.0f} hours of use at the median rate (never at the cheapest)</source>
        <translation>{head}：按中位数费率使用 {median:,.0f} 小时后购买开始划算（按最低费率永远不划算）</translation>
    </message>
    <message>
        <source>{head}: buying pays off after {cheapest:,.0f} hours of use at the cheapest rate, {median:,.0f} at the median</source>
        <translation>{head}：按最低费率使用 {cheapest:,.0f} 小时后购买开始划算，按中位数为 {median:,.0f} 小时</translation>
    </message>
    <message>
        <source>Start with the {card}; once you know your direction (start-up, Kaggle, research, applied work), sell it (it fetched about {price} used by {date}) and buy what that direction needs — the article&apos;s start-cheap, sell-and-upgrade path.</source>
        <translation>先用 {card} 起步；等你明确了方向（创业、Kaggle、研究、应用），就把它卖掉（到 {date} 二手约值 {price}），再买那个方向需要的显卡——这就是原文“先买便宜的、再卖掉升级”的路线。</translation>
    </message>
    <message>
        <source>Start with the {card}; once you know your direction (start-up, Kaggle, research, applied work), sell it and buy what that direction needs — the article&apos;s start-cheap, sell-and-upgrade path.</source>
        <translation>先用 {card} 起步；等你明确了方向（创业、Kaggle、研究、应用），就把它卖掉，再买那个方向需要的显卡——这就是原文“先买便宜的、再卖掉升级”的路线。</translation>
    </message>
    <message>
        <source>launch price</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>{market} {kind}</source>
        <translation>{market}{kind}</translation>
    </message>
    <message>
        <source>{condition} {price}</source>
        <translation>{condition} {price}</translation>
    </message>
    <message>
        <source>{p0}</source>
        <translation>{p0}</translation>
    </message>
    <message>
        <source>{p0}, {p1}</source>
        <translation>{p0}，{p1}</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}</source>
        <translation>{p0}，{p1}，{p2}</translation>
    </message>
    <message>
        <source>{p0}, {p1}, {p2}, {p3}</source>
        <translation>{p0}，{p1}，{p2}，{p3}</translation>
    </message>
    <message>
        <source>supported</source>
        <translation>支持</translation>
    </message>
    <message>
        <source>legacy builds only</source>
        <translation>仅旧版构建</translation>
    </message>
    <message>
        <source>unsupported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <source>Blackwell (compute capability {cc}): supported by current builds; needs CUDA 12.8 or newer and PyTorch 2.7 or newer.</source>
        <translation>Blackwell（计算能力 {cc}）：当前版本支持；需要 CUDA 12.8 或更新版本，以及 PyTorch 2.7 或更新版本。</translation>
    </message>
    <message>
        <source>Compute capability {cc}: current CUDA 13 toolkits (which need 7.5, Turing, or newer), cuDNN and PyTorch builds support it.</source>
        <translation>计算能力 {cc}：当前的 CUDA 13 工具包（需要 7.5，即 Turing 或更新架构）、cuDNN 和 PyTorch 版本都支持。</translation>
    </message>
    <message>
        <source>Compute capability {cc} (Maxwell, Pascal or Volta): CUDA 13 dropped 5.0-7.2. Use the CUDA 12.x toolkit and PyTorch wheels built for CUDA 12.6 or older (e.g. cu126); wheels built for CUDA 12.8 and later drop some or all of these architectures.</source>
        <translation>计算能力 {cc}（Maxwell、Pascal 或 Volta）：CUDA 13 已放弃 5.0-7.2。请使用 CUDA 12.x 工具包，以及为 CUDA 12.6 或更早版本构建的 PyTorch wheel（例如 cu126）；为 CUDA 12.8 及之后版本构建的 wheel 去掉了部分或全部这些架构。</translation>
    </message>
    <message>
        <source>Compute capability {cc} (Kepler): CUDA 12 dropped it (the last toolkit is CUDA 11.x) and current cuDNN and PyTorch builds do not include it; only old releases built against CUDA 11 or earlier run. The 2016-17 article&apos;s era still supported it.</source>
        <translation>计算能力 {cc}（Kepler）：CUDA 12 已放弃它（最后支持的工具包是 CUDA 11.x），当前的 cuDNN 和 PyTorch 版本都不包含它；只有基于 CUDA 11 或更早版本构建的旧版本能运行。2016-17 年文章的时代仍然支持它。</translation>
    </message>
    <message>
        <source>Compute capability {cc}: older than Kepler; cuDNN never supported it.</source>
        <translation>计算能力 {cc}：早于 Kepler；cuDNN 从未支持。</translation>
    </message>
    <message>
        <source>Number of output channels (filters).</source>
        <translation>输出通道（过滤器）数。</translation>
    </message>
    <message>
        <source>Kernel size: one number or one per spatial dimension.</source>
        <translation>卷积核大小：一个数，或每个空间维度一个数。</translation>
    </message>
    <message>
        <source>Stride: one number or one per spatial dimension.</source>
        <translation>步幅：一个数，或每个空间维度一个数。</translation>
    </message>
    <message>
        <source>&apos;valid&apos; (no padding), &apos;same&apos; (output = input ÷ stride) or explicit pixels.</source>
        <translation>&apos;valid&apos;（不填充）、&apos;same&apos;（输出 = 输入 ÷ 步幅）或明确的像素数。</translation>
    </message>
    <message>
        <source>Dilation of the kernel.</source>
        <translation>卷积核的膨胀率。</translation>
    </message>
    <message>
        <source>Groups (channels ÷ groups per filter; = channels for depthwise).</source>
        <translation>分组数（每个过滤器看到 通道数 ÷ 分组数 个通道；深度可分离卷积时 = 通道数）。</translation>
    </message>
    <message>
        <source>Whether the layer has a bias vector.</source>
        <translation>该层是否有偏置向量。</translation>
    </message>
    <message>
        <source>Weight standardisation: none; plain (the weight normalised per filter in every step, a copy the layer keeps for backward); gain (also a learned gain per filter: NF-Nets).</source>
        <translation>权重标准化：none（无）；plain（每步按滤波器对权重做标准化，该层为反向传播保留一份副本）；gain（另有每个滤波器一个可学习增益：NF-Net）。</translation>
    </message>
    <message>
        <source>Weight normalisation (weight_norm): elements of the learned magnitude g besides the direction v (0 = none); the weight g·v/|v| is computed in every step, a copy the layer keeps for backward.</source>
        <translation>权重归一化（weight_norm）：除方向 v 之外，可学习幅度 g 的元素数（0 = 无）；权重 g·v/|v| 在每一步中计算，是该层为反向传播保留的一份副本。</translation>
    </message>
    <message>
        <source>Pooling window.</source>
        <translation>池化窗口。</translation>
    </message>
    <message>
        <source>Stride (empty = the window size).</source>
        <translation>步幅（留空 = 窗口大小）。</translation>
    </message>
    <message>
        <source>Padding in pixels on each side.</source>
        <translation>每侧填充的像素数。</translation>
    </message>
    <message>
        <source>Round the output size up instead of down.</source>
        <translation>输出大小向上取整而不是向下取整。</translation>
    </message>
    <message>
        <source>{what} needs 1 or {dims} numbers, got {count}</source>
        <translation>{what} 需要 1 个或 {dims} 个数，实际是 {count} 个</translation>
    </message>
    <message>
        <source>padding &apos;{padding}&apos; is not &apos;valid&apos;, &apos;same&apos; or a number</source>
        <translation>填充“{padding}”不是 &apos;valid&apos;、&apos;same&apos; 或数字</translation>
    </message>
    <message>
        <source>padding cannot be negative</source>
        <translation>填充不能为负数</translation>
    </message>
    <message>
        <source>kernel {kernel} is larger than its {input} input (with padding)</source>
        <translation>卷积核 {kernel} 大于其 {input} 的输入（含填充）</translation>
    </message>
    <message>
        <source>kernel {kernel} is larger than its {input} input</source>
        <translation>卷积核 {kernel} 大于其 {input} 的输入</translation>
    </message>
    <message>
        <source>input shape needs 1 to 4 dimensions (C×H×W, C×T×H×W, T×F or F)</source>
        <translation>输入形状需要 1 到 4 个维度（C×H×W、C×T×H×W、T×F 或 F）</translation>
    </message>
    <message>
        <source>input shape {shape} has a dimension below 1</source>
        <translation>输入形状 {shape} 有小于 1 的维度</translation>
    </message>
    <message>
        <source>needs a {want} input, got {shape}</source>
        <translation>需要 {want} 的输入，实际是 {shape}</translation>
    </message>
    <message>
        <source>groups {groups} must divide both the {cin} input channels and {filters} filters</source>
        <translation>分组数 {groups} 必须同时整除 {cin} 个输入通道和 {filters} 个过滤器</translation>
    </message>
    <message>
        <source>needs a C×H×W or C×T×H×W input, got {shape}</source>
        <translation>需要 C×H×W 或 C×T×H×W 的输入，实际是 {shape}</translation>
    </message>
    <message>
        <source>padding {p} is more than half the {k} window</source>
        <translation>填充 {p} 超过了 {k} 窗口的一半</translation>
    </message>
    <message>
        <source>window {dims} is larger than its {dims2} input</source>
        <translation>窗口 {dims} 大于其 {dims2} 的输入</translation>
    </message>
    <message>
        <source>needs a C×H×W, C×T×H×W or T×F input, got {shape}</source>
        <translation>需要 C×H×W、C×T×H×W 或 T×F 的输入，实际是 {shape}</translation>
    </message>
    <message>
        <source>needs channels and at least one more dimension, got {shape}</source>
        <translation type="vanished">需要通道维和至少一个其他维度，实际是 {shape}</translation>
    </message>
    <message>
        <source>unknown activation &apos;{fn}&apos; (one of {choices})</source>
        <translation>未知的激活函数“{fn}”（可选：{choices}）</translation>
    </message>
    <message>
        <source>dropout probability {p} must be at least 0 and below 1</source>
        <translation>dropout 概率 {p} 必须不小于 0 且小于 1</translation>
    </message>
    <message>
        <source>quant &apos;{quant}&apos; needs a frozen layer (quantised weights get no gradient)</source>
        <translation>量化 &apos;{quant}&apos; 需要冻结的层（量化权重没有梯度）</translation>
    </message>
    <message>
        <source>quant &apos;{quant}&apos; cannot apply to a tied weight (it is the embedding&apos;s)</source>
        <translation>量化 &apos;{quant}&apos; 不能用于绑定的权重（它属于词嵌入）</translation>
    </message>
    <message>
        <source>needs the layer named in &apos;from&apos;</source>
        <translation>需要在 &apos;from&apos; 中指定的层</translation>
    </message>
    <message>
        <source>cannot add {shape} (&apos;from&apos;) to {shape2}</source>
        <translation>无法把 {shape}（&apos;from&apos;）加到 {shape2} 上</translation>
    </message>
    <message>
        <source>needs at least one layer named in &apos;from&apos;</source>
        <translation>需要在 &apos;from&apos; 中至少指定一个层</translation>
    </message>
    <message>
        <source>cannot concatenate {shape} with {shape2}: all but the channel dimension must match</source>
        <translation>无法把 {shape} 与 {shape2} 拼接：除通道维外其他维度必须一致</translation>
    </message>
    <message>
        <source>mode &apos;{mode}&apos; is not &apos;nearest&apos; or &apos;bilinear&apos;</source>
        <translation>模式“{mode}”不是 &apos;nearest&apos; 或 &apos;bilinear&apos;</translation>
    </message>
    <message>
        <source>needs a T×F sequence input (steps × features), got {shape}</source>
        <translation>需要 T×F 的序列输入（步数 × 特征），实际是 {shape}</translation>
    </message>
    <message>
        <source>Padding removed from each side of the output.</source>
        <translation>从输出每侧去掉的填充。</translation>
    </message>
    <message>
        <source>Extra rows/columns added on one side of the output.</source>
        <translation>在输出一侧额外添加的行/列。</translation>
    </message>
    <message>
        <source>padding {dims} leaves no output</source>
        <translation>填充 {dims} 使输出为空</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Per-sample shape: C×H×W images, C×T×H×W video, T×F sequences.</source>
        <translation>每个样本的形状：C×H×W 图像，C×T×H×W 视频，T×F 序列。</translation>
    </message>
    <message>
        <source>The network&apos;s input, without the batch dimension.</source>
        <translation>网络的输入，不含批量维度。</translation>
    </message>
    <message>
        <source>Conv 2D</source>
        <translation>二维卷积</translation>
    </message>
    <message>
        <source>2-D convolution; keeps its input for backward.</source>
        <translation>二维卷积；为反向传播保留其输入。</translation>
    </message>
    <message>
        <source>Conv 3D</source>
        <translation>三维卷积</translation>
    </message>
    <message>
        <source>3-D convolution (video, volumes); keeps its input for backward.</source>
        <translation>三维卷积（视频、体数据）；为反向传播保留其输入。</translation>
    </message>
    <message>
        <source>Max pool</source>
        <translation>最大池化</translation>
    </message>
    <message>
        <source>Max pooling; keeps its input and int64 indices.</source>
        <translation>最大池化；保留其输入和 int64 索引。</translation>
    </message>
    <message>
        <source>Average pool</source>
        <translation>平均池化</translation>
    </message>
    <message>
        <source>Average pooling; keeps its input.</source>
        <translation>平均池化；保留其输入。</translation>
    </message>
    <message>
        <source>Adaptive avg pool</source>
        <translation>自适应平均池化</translation>
    </message>
    <message>
        <source>Output size per spatial dimension.</source>
        <translation>每个空间维度的输出大小。</translation>
    </message>
    <message>
        <source>Average pooling to a fixed output size.</source>
        <translation>池化到固定输出大小的平均池化。</translation>
    </message>
    <message>
        <source>Global avg pool</source>
        <translation>全局平均池化</translation>
    </message>
    <message>
        <source>Averages each channel to one number (output: C).</source>
        <translation>把每个通道平均成一个数（输出：C）。</translation>
    </message>
    <message>
        <source>needs a channel dimension, got {shape}</source>
        <translation>需要通道维，实际是 {shape}</translation>
    </message>
    <message>
        <source>Batch norm</source>
        <translation>批归一化</translation>
    </message>
    <message>
        <source>Batch normalisation; keeps its input and per-channel statistics.</source>
        <translation>批归一化；保留其输入和每通道的统计量。</translation>
    </message>
    <message>
        <source>Layer norm</source>
        <translation>层归一化</translation>
    </message>
    <message>
        <source>A learned shift besides the scale (off: LayerNorm(bias=False), as in ModernBERT and OLMo).</source>
        <translation>除缩放外还有可学习的偏移（关闭：LayerNorm(bias=False)，如 ModernBERT 和 OLMo）。</translation>
    </message>
    <message>
        <source>A learned scale and shift (off: LayerNorm(elementwise_affine=False), as DiT&apos;s adaptive norms: no parameters).</source>
        <translation>学习得到的缩放与偏移（关闭：LayerNorm(elementwise_affine=False)，如 DiT 的自适应归一化：没有参数）。</translation>
    </message>
    <message>
        <source>fused (torch.nn.LayerNorm: keeps its input, mean and 1/std) or eager (written out in Python, as DeBERTa&apos;s: keeps x - mean twice, the std and the normalised tensor).</source>
        <translation>fused（torch.nn.LayerNorm：保留输入、均值和 1/std）或 eager（在 Python 中逐步写出，如 DeBERTa 的：保留两份 x - mean、标准差和归一化后的张量）。</translation>
    </message>
    <message>
        <source>Layer normalisation over the last dimension.</source>
        <translation>在最后一个维度上做层归一化。</translation>
    </message>
    <message>
        <source>Activation</source>
        <translation>激活</translation>
    </message>
    <message>
        <source>The non-linearity.</source>
        <translation>非线性函数。</translation>
    </message>
    <message>
        <source>Overwrite the input instead of allocating an output (saves memory).</source>
        <translation>覆盖输入而不是分配新的输出（节省显存）。</translation>
    </message>
    <message>
        <source>ReLU and friends.</source>
        <translation>ReLU 及类似函数。</translation>
    </message>
    <message>
        <source>Dropout</source>
        <translation>Dropout</translation>
    </message>
    <message>
        <source>Probability of dropping a unit.</source>
        <translation>丢弃一个单元的概率。</translation>
    </message>
    <message>
        <source>Dropout; keeps a one-byte mask.</source>
        <translation>Dropout；保留一个单字节掩码。</translation>
    </message>
    <message>
        <source>Flatten</source>
        <translation>展平</translation>
    </message>
    <message>
        <source>Flattens to a vector (a view, free).</source>
        <translation>展平为向量（一个视图，不占显存）。</translation>
    </message>
    <message>
        <source>Fully connected</source>
        <translation>全连接</translation>
    </message>
    <message>
        <source>Output features.</source>
        <translation>输出特征数。</translation>
    </message>
    <message>
        <source>The weight is the token embedding&apos;s (an LM head tied to it): no parameters of its own.</source>
        <translation>权重即词嵌入的权重（与之绑定的语言模型头）：自身没有参数。</translation>
    </message>
    <message>
        <source>Frozen weights: no gradient, no optimizer state; keeps nothing for backward (its input&apos;s gradient needs only the weight).</source>
        <translation>冻结权重：无梯度、无优化器状态；反向传播不保留任何张量（输入的梯度只需要权重）。</translation>
    </message>
    <message>
        <source>LoRA adapters of this rank on a frozen base (0 = none): they keep the layer&apos;s input and a rank-wide intermediate.</source>
        <translation>在冻结基座上加此秩的 LoRA 适配器（0 = 无）：保留该层的输入和一个秩宽度的中间张量。</translation>
    </message>
    <message>
        <source>Stored format of frozen weights: none, int8 (LLM.int8), nf4 (QLoRA&apos;s 4-bit NormalFloat, fp32 absmax per 64), nf4_dq (with double quantisation).</source>
        <translation>冻结权重的存储格式：none、int8（LLM.int8）、nf4（QLoRA 的 4 位 NormalFloat，每 64 个一个 fp32 absmax）、nf4_dq（带双重量化）。</translation>
    </message>
    <message>
        <source>Dense / linear layer over the last dimension; keeps its input.</source>
        <translation>在最后一个维度上的全连接（线性）层；保留其输入。</translation>
    </message>
    <message>
        <source>Residual add</source>
        <translation>残差相加</translation>
    </message>
    <message>
        <source>The earlier layer whose output is added to the previous one.</source>
        <translation>输出被加到前一层输出上的那个更早的层。</translation>
    </message>
    <message>
        <source>Adds an earlier layer&apos;s output (a skip connection); keeps nothing.</source>
        <translation>加上更早一层的输出（跳跃连接）；不保留任何张量。</translation>
    </message>
    <message>
        <source>Concat</source>
        <translation>拼接</translation>
    </message>
    <message>
        <source>Earlier layers concatenated (channels) to the previous one.</source>
        <translation>（按通道）拼接到前一层输出上的更早的层。</translation>
    </message>
    <message>
        <source>Concatenates channels; keeps nothing.</source>
        <translation>按通道拼接；不保留任何张量。</translation>
    </message>
    <message>
        <source>Upsample</source>
        <translation>上采样</translation>
    </message>
    <message>
        <source>Scale factor.</source>
        <translation>放大倍数。</translation>
    </message>
    <message>
        <source>Interpolation.</source>
        <translation>插值方式。</translation>
    </message>
    <message>
        <source>Spatial upsampling; keeps nothing.</source>
        <translation>空间上采样；不保留任何张量。</translation>
    </message>
    <message>
        <source>LSTM</source>
        <translation>LSTM</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Query heads; q, k and v are then T×(heads·head size) (0 = the shapes carry the heads).</source>
        <translation>查询头数；此时 q、k、v 为 T×(头数·头大小)（0 = 由形状携带头）。</translation>
    </message>
    <message>
        <source>Key/value heads (grouped-query attention; 0 = as many as heads).</source>
        <translation>键/值头数（分组查询注意力；0 = 与头数相同）。</translation>
    </message>
    <message>
        <source>Each token attends only to earlier ones (decoders).</source>
        <translation>每个词元只关注之前的词元（解码器）。</translation>
    </message>
    <message>
        <source>sdpa_flash / sdpa_mem_efficient (PyTorch SDPA kernels: keep q, k, v, the output and a logsumexp) or eager (keeps the T×T softmax).</source>
        <translation>sdpa_flash / sdpa_mem_efficient（PyTorch SDPA 内核：保留 q、k、v、输出和 logsumexp）或 eager（保留 T×T 的 softmax）。</translation>
    </message>
    <message>
        <source>Attention dropout probability (eager keeps a mask).</source>
        <translation>注意力 dropout 概率（eager 保留掩码）。</translation>
    </message>
    <message>
        <source>With fewer kv_heads: k and v are copied to every head first (Hugging Face&apos;s repeat_kv) rather than read by group.</source>
        <translation>kv_heads 较少时：先把 k 和 v 复制到每个头（Hugging Face 的 repeat_kv），而不是按组读取。</translation>
    </message>
    <message>
        <source>k and v go through a key/value cache first (Hugging Face&apos;s forward with use_cache, its default, also in training): attention keeps the cache&apos;s copies, not its inputs.</source>
        <translation>k 和 v 先进入键值缓存（Hugging Face 以 use_cache 运行前向，这是其默认设置，训练时也是）：注意力保留缓存中的副本，而非其输入。</translation>
    </message>
    <message>
        <source>Attention of q (this input) with k and v (&apos;from&apos;): SDPA keeps q, k, v, the output and a logsumexp per row; eager keeps q, k, v and the softmax.</source>
        <translation>q（本输入）与 k、v（&apos;from&apos;）的注意力：SDPA 保留 q、k、v、输出和每行一个 logsumexp；eager 保留 q、k、v 和 softmax。</translation>
    </message>
    <message>
        <source>Rotary positions</source>
        <translation>旋转位置编码</translation>
    </message>
    <message>
        <source>Rotates q or k by position (RoPE); the cos/sin tables are counted once, by the embedding.</source>
        <translation>按位置旋转 q 或 k（RoPE）；cos/sin 表由嵌入层计一次。</translation>
    </message>
    <message>
        <source>Patch embedding</source>
        <translation>图块嵌入</translation>
    </message>
    <message>
        <source>Patch side in pixels.</source>
        <translation>图块边长（像素）。</translation>
    </message>
    <message>
        <source>Features per token.</source>
        <translation>每个词元的特征数。</translation>
    </message>
    <message>
        <source>Prepend a learned class token.</source>
        <translation>在前面加一个可学习的类别词元。</translation>
    </message>
    <message>
        <source>Add learned position embeddings (one per token).</source>
        <translation>加上可学习的位置嵌入（每个词元一个）。</translation>
    </message>
    <message>
        <source>ViT&apos;s patch embedding: a patch×patch convolution to tokens, a class token and position embeddings; keeps the image.</source>
        <translation>ViT 的图块嵌入：patch×patch 卷积得到词元，加类别词元和位置嵌入；保留图像。</translation>
    </message>
    <message>
        <source>Hidden units.</source>
        <translation>隐藏单元数。</translation>
    </message>
    <message>
        <source>Stacked layers.</source>
        <translation>堆叠层数。</translation>
    </message>
    <message>
        <source>Run both directions.</source>
        <translation>双向运行。</translation>
    </message>
    <message>
        <source>Output every step (T×H) or only the last (H).</source>
        <translation>输出每一步（T×H）或只输出最后一步（H）。</translation>
    </message>
    <message>
        <source>Projection size (PyTorch&apos;s proj_size; 0 = none): each step&apos;s hidden state is projected to this width, which the output and the next step read.</source>
        <translation>投影大小（PyTorch 的 proj_size；0 = 无）：每一步的隐藏状态被投影到此宽度，输出和下一步读取的都是它。</translation>
    </message>
    <message>
        <source>LSTM over a T×F sequence (T = sequence length, set on the input).</source>
        <translation>在 T×F 序列上的 LSTM（T = 序列长度，在输入层设置）。</translation>
    </message>
    <message>
        <source>Transposed conv 2D</source>
        <translation>二维转置卷积</translation>
    </message>
    <message>
        <source>2-D transposed convolution (decoders, upsampling); keeps its input.</source>
        <translation>二维转置卷积（解码器、上采样）；保留其输入。</translation>
    </message>
    <message>
        <source>Transposed conv 3D</source>
        <translation>三维转置卷积</translation>
    </message>
    <message>
        <source>3-D transposed convolution; keeps its input.</source>
        <translation>三维转置卷积；保留其输入。</translation>
    </message>
    <message>
        <source>GRU</source>
        <translation>GRU</translation>
    </message>
    <message>
        <source>GRU over a T×F sequence; keeps its input, cuDNN&apos;s reserve and its output.</source>
        <translation>在 T×F 序列上的 GRU；保留其输入、cuDNN 的预留空间和其输出。</translation>
    </message>
    <message>
        <source>Other operation</source>
        <translation>其他运算</translation>
    </message>
    <message>
        <source>What it keeps for backward (&apos;input&apos; is the safe guess for an unknown op).</source>
        <translation>为反向传播保留什么（对未知运算，&apos;input&apos; 是稳妥的猜测）。</translation>
    </message>
    <message>
        <source>Output shape per sample (empty = the input&apos;s).</source>
        <translation>每个样本的输出形状（留空 = 与输入相同）。</translation>
    </message>
    <message>
        <source>Further layers it reads (the other operand of a product).</source>
        <translation>它读取的其他层（乘积的另一个操作数）。</translation>
    </message>
    <message>
        <source>An operation without a planner layer (from an imported file): keeps its input&apos;s shape unless &apos;shape&apos; says otherwise, and what &apos;keeps&apos; says.</source>
        <translation>没有对应规划器层的运算（来自导入的文件）：除非 &apos;shape&apos; 另有指定，否则保持输入的形状，并按 &apos;keeps&apos; 保留张量。</translation>
    </message>
    <message>
        <source>needs {n} layer(s) named in &apos;from&apos;</source>
        <translation>需要在 &apos;from&apos; 中指定 {n} 个层</translation>
    </message>
    <message>
        <source>split {parts} does not divide the last dimension {last}</source>
        <translation>切分数 {parts} 不能整除最后一维 {last}</translation>
    </message>
    <message>
        <source>cannot view {shape} as the larger {shape2}</source>
        <translation>无法把 {shape} 视为更大的 {shape2}</translation>
    </message>
    <message>
        <source>a product needs two tensors</source>
        <translation>乘积需要两个张量</translation>
    </message>
    <message>
        <source>cannot multiply {shape} by {shape2}</source>
        <translation>无法将 {shape} 与 {shape2} 相乘</translation>
    </message>
    <message>
        <source>max_positions {max_pos} is shorter than the {seq}-token sequence</source>
        <translation>max_positions {max_pos} 短于 {seq} 个词元的序列</translation>
    </message>
    <message>
        <source>rotary_dim {rot} must be an even number of at least 2 (the head size)</source>
        <translation>rotary_dim {rot} 必须是至少为 2 的偶数（头大小）</translation>
    </message>
    <message>
        <source>dropout {p} must be at least 0 and below 1</source>
        <translation>dropout {p} 必须不小于 0 且小于 1</translation>
    </message>
    <message>
        <source>q {shape}, k {shape2} and v {shape3} do not fit together</source>
        <translation>q {shape}、k {shape2} 与 v {shape3} 的形状不匹配</translation>
    </message>
    <message>
        <source>heads {heads} do not divide q&apos;s {features} features</source>
        <translation>头数 {heads} 不能整除 q 的 {features} 个特征</translation>
    </message>
    <message>
        <source>kv_heads {kv_heads} do not divide heads {heads}</source>
        <translation>kv_heads {kv_heads} 不能整除头数 {heads}</translation>
    </message>
    <message>
        <source>k {shape2} and v {shape3} do not hold kv_heads {kv_heads} of head size {hd}</source>
        <translation>k {shape2} 和 v {shape3} 不是 {kv_heads} 个大小为 {hd} 的键/值头</translation>
    </message>
    <message>
        <source>causal attention needs as many keys as queries, not {t_k} and {t_q}</source>
        <translation>因果注意力需要键与查询一样多，而不是 {t_k} 和 {t_q}</translation>
    </message>
    <message>
        <source>needs a C×H×W image, got {shape}</source>
        <translation>需要 C×H×W 图像，得到 {shape}</translation>
    </message>
    <message>
        <source>patch {p} does not divide the {h}×{w} image</source>
        <translation>图块 {p} 不能整除 {h}×{w} 的图像</translation>
    </message>
    <message>
        <source>cannot broadcast {shape} with {shape2}</source>
        <translation>无法将 {shape} 与 {shape2} 广播</translation>
    </message>
    <message>
        <source>Further layers it reads (the other operands).</source>
        <translation>它还读取的其他层（其余操作数）。</translation>
    </message>
    <message>
        <source>View / reshape</source>
        <translation>视图 / 变形</translation>
    </message>
    <message>
        <source>One of this many equal slices of the last dimension (0 = no split).</source>
        <translation>最后一维等分成这么多份中的一份（0 = 不切分）。</translation>
    </message>
    <message>
        <source>Reshape, permute, slice or select: a view of its input&apos;s storage (free, keeps nothing).</source>
        <translation>reshape、permute、切片或选取：输入存储的视图（不占内存，不保留任何张量）。</translation>
    </message>
    <message>
        <source>Matrix product</source>
        <translation>矩阵乘积</translation>
    </message>
    <message>
        <source>Product of two activations (attention scores); keeps both operands.</source>
        <translation>两个激活的乘积（注意力分数）；保留两个操作数。</translation>
    </message>
    <message>
        <source>Softmax</source>
        <translation>归一化指数函数</translation>
    </message>
    <message>
        <source>Softmax over the last dimension; keeps its output.</source>
        <translation>在最后一维上做 softmax；保留其输出。</translation>
    </message>
    <message>
        <source>RMS norm</source>
        <translation>均方根归一化</translation>
    </message>
    <message>
        <source>Whether it has a learned scale per feature.</source>
        <translation>是否每个特征有一个可学习的缩放。</translation>
    </message>
    <message>
        <source>fused (torch.nn.RMSNorm: keeps its input and 1/RMS) or eager (Hugging Face&apos;s LlamaRMSNorm: also keeps the normalised tensor).</source>
        <translation>fused（torch.nn.RMSNorm：保留输入和 1/RMS）或 eager（Hugging Face 的 LlamaRMSNorm：还保留归一化后的张量）。</translation>
    </message>
    <message>
        <source>RMS normalisation over the last dimension; keeps its input and 1/RMS per row.</source>
        <translation>在最后一维上做均方根归一化；保留输入和每行的均方根倒数。</translation>
    </message>
    <message>
        <source>Embedding</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>Rows of the table (vocabulary).</source>
        <translation>表的行数（词表大小）。</translation>
    </message>
    <message>
        <source>Features per row.</source>
        <translation>每行的特征数。</translation>
    </message>
    <message>
        <source>Positions: none, learned (a table of max_positions rows added) or rotary (cos/sin tables applied to q and k by rotary layers).</source>
        <translation>位置：none、learned（加上 max_positions 行的表）或 rotary（由旋转层把 cos/sin 表作用于 q 和 k）。</translation>
    </message>
    <message>
        <source>Rows of the learned position table.</source>
        <translation>可学习位置表的行数。</translation>
    </message>
    <message>
        <source>Rows of a token-type (segment) table added (BERT: 2).</source>
        <translation>加上的词元类型（段）表的行数（BERT：2）。</translation>
    </message>
    <message>
        <source>Features rotated per head (rotary positions: the head size).</source>
        <translation>每个头旋转的特征数（旋转位置：头大小）。</translation>
    </message>
    <message>
        <source>The table is an earlier embedding&apos;s (an encoder-decoder&apos;s shared vocabulary): no parameters of its own.</source>
        <translation>该表属于前面的某个嵌入层（编码器-解码器共享的词表）：本层没有自己的参数。</translation>
    </message>
    <message>
        <source>Looks up token ids in a learned table; keeps the ids for backward.</source>
        <translation>在可学习的表中查找词元 id；为反向传播保留这些 id。</translation>
    </message>
    <message>
        <source>Attention (fused)</source>
        <translation type="vanished">注意力（融合）</translation>
    </message>
    <message>
        <source>Scaled dot-product attention of q (this input), k and v (&apos;from&apos;); keeps q, k, v, the output and a logsumexp per row.</source>
        <translation type="vanished">q（本层输入）、k 和 v（&apos;from&apos;）的缩放点积注意力；保留 q、k、v、输出和每行一个 logsumexp。</translation>
    </message>
    <message>
        <source>Further input</source>
        <translation>其他输入</translation>
    </message>
    <message>
        <source>Per-sample shape of this input: T token ids, C×H×W images, T×F sequences.</source>
        <translation>该输入的单样本形状：T 个词元 ID、C×H×W 图像、T×F 序列。</translation>
    </message>
    <message>
        <source>Another input of the network (an encoder-decoder&apos;s decoder tokens, a two-tower network&apos;s second input), without the batch dimension; the batch is the same as the first input&apos;s. Layers read it through &apos;input&apos;.</source>
        <translation>网络的另一个输入（编码器-解码器的解码器词元、双塔网络的第二个输入），不含批次维度；批次与第一个输入相同。各层通过 &apos;input&apos; 读取它。</translation>
    </message>
    <message>
        <source>Einsum</source>
        <translation>爱因斯坦求和</translation>
    </message>
    <message>
        <source>Einstein summation of activations; keeps every operand.</source>
        <translation type="vanished">激活的爱因斯坦求和；保留所有操作数。</translation>
    </message>
    <message>
        <source>Elements of a learned operand (a weight multiplied by Einsum).</source>
        <translation>学习得到的操作数（由 Einsum 相乘的权重）的元素数。</translation>
    </message>
    <message>
        <source>Size of the contracted indices (0 = derived from the shapes).</source>
        <translation>被缩并下标的大小（0 = 由形状推出）。</translation>
    </message>
    <message>
        <source>Einstein summation of activations (and at most one learned operand); keeps every activation operand.</source>
        <translation>激活（以及至多一个学习得到的操作数）的爱因斯坦求和；保留每个激活操作数。</translation>
    </message>
    <message>
        <source>Where / mask</source>
        <translation>条件选择 / 掩码</translation>
    </message>
    <message>
        <source>Selects by a mask (masked_fill, where); keeps a 1-byte mask.</source>
        <translation>按掩码选择（masked_fill、where）；保留 1 字节的掩码。</translation>
    </message>
    <message>
        <source>Element-wise</source>
        <translation>逐元素</translation>
    </message>
    <message>
        <source>The operation.</source>
        <translation>运算。</translation>
    </message>
    <message>
        <source>What it keeps for backward.</source>
        <translation>为反向传播保留的内容。</translation>
    </message>
    <message>
        <source>Elements of a learned tensor it applies (layer scale, embedding).</source>
        <translation>它使用的可学习张量的元素数（层缩放、嵌入）。</translation>
    </message>
    <message>
        <source>Add, multiply, ... with broadcasting, of activations or with a learned tensor.</source>
        <translation>带广播的加、乘等运算，作用于激活之间或激活与可学习张量。</translation>
    </message>
    <message>
        <source>Read this earlier layer&apos;s output instead of the previous layer&apos;s (branches).</source>
        <translation>读取这个更早的层的输出，而不是前一层的输出（分支）。</translation>
    </message>
    <message>
        <source>Frozen weights: no gradient, no optimizer state.</source>
        <translation>冻结权重：无梯度、无优化器状态。</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>形状（shape）</translation>
    </message>
    <message>
        <source>filters</source>
        <translation>过滤器数（filters）</translation>
    </message>
    <message>
        <source>kernel</source>
        <translation>卷积核（kernel）</translation>
    </message>
    <message>
        <source>stride</source>
        <translation>步幅（stride）</translation>
    </message>
    <message>
        <source>padding</source>
        <translation>填充（padding）</translation>
    </message>
    <message>
        <source>dilation</source>
        <translation>膨胀（dilation）</translation>
    </message>
    <message>
        <source>groups</source>
        <translation>分组（groups）</translation>
    </message>
    <message>
        <source>bias</source>
        <translation>偏置（bias）</translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入（input）</translation>
    </message>
    <message>
        <source>ceil mode</source>
        <translation>向上取整（ceil mode）</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出（output）</translation>
    </message>
    <message>
        <source>function</source>
        <translation>函数（function）</translation>
    </message>
    <message>
        <source>inplace</source>
        <translation>原地（inplace）</translation>
    </message>
    <message>
        <source>p</source>
        <translation>概率（p）</translation>
    </message>
    <message>
        <source>units</source>
        <translation>输出单元数（units）</translation>
    </message>
    <message>
        <source>from</source>
        <translation>来自（from）</translation>
    </message>
    <message>
        <source>scale</source>
        <translation>倍数（scale）</translation>
    </message>
    <message>
        <source>mode</source>
        <translation>模式（mode）</translation>
    </message>
    <message>
        <source>hidden</source>
        <translation>隐藏单元（hidden）</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>层数（layers）</translation>
    </message>
    <message>
        <source>bidirectional</source>
        <translation>双向（bidirectional）</translation>
    </message>
    <message>
        <source>return sequences</source>
        <translation>返回序列（return sequences）</translation>
    </message>
    <message>
        <source>output padding</source>
        <translation>输出填充（output padding）</translation>
    </message>
    <message>
        <source>keeps</source>
        <translation>保留（keeps）</translation>
    </message>
    <message>
        <source>affine</source>
        <translation>仿射</translation>
    </message>
    <message>
        <source>rows</source>
        <translation>行数</translation>
    </message>
    <message>
        <source>features</source>
        <translation>特征数</translation>
    </message>
    <message>
        <source>operation</source>
        <translation>运算</translation>
    </message>
    <message>
        <source>tied</source>
        <translation>绑定</translation>
    </message>
    <message>
        <source>frozen</source>
        <translation>冻结</translation>
    </message>
    <message>
        <source>LoRA rank</source>
        <translation>LoRA 秩</translation>
    </message>
    <message>
        <source>quantised</source>
        <translation>量化</translation>
    </message>
    <message>
        <source>positions</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>max positions</source>
        <translation>最大位置数</translation>
    </message>
    <message>
        <source>token types</source>
        <translation>词元类型数</translation>
    </message>
    <message>
        <source>rotary size</source>
        <translation>旋转维数</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>kv heads</source>
        <translation>键值头数</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>implementation</source>
        <translation>实现</translation>
    </message>
    <message>
        <source>dropout</source>
        <translation>dropout</translation>
    </message>
    <message>
        <source>repeat kv</source>
        <translation>复制 kv</translation>
    </message>
    <message>
        <source>patch</source>
        <translation>图块</translation>
    </message>
    <message>
        <source>class token</source>
        <translation>类别词元</translation>
    </message>
    <message>
        <source>split</source>
        <translation>切分</translation>
    </message>
    <message>
        <source>standardised weight</source>
        <translation>标准化权重</translation>
    </message>
    <message>
        <source>{what} must be a number, not {text!r}</source>
        <translation>{what} 必须是数字，而不是 {text!r}</translation>
    </message>
    <message>
        <source>{what} is empty</source>
        <translation>{what} 为空</translation>
    </message>
    <message>
        <source>{what} must be a number or list of numbers, not {text!r}</source>
        <translation>{what} 必须是数字或数字列表，而不是 {text!r}</translation>
    </message>
    <message>
        <source>{what} &apos;{item}&apos; is not a number</source>
        <translation>{what} “{item}”不是数字</translation>
    </message>
    <message>
        <source>{what} &apos;{item}&apos; is not a whole number</source>
        <translation>{what} “{item}”不是整数</translation>
    </message>
    <message>
        <source>{what} {v} is below {minimum}</source>
        <translation>{what} {v} 小于 {minimum}</translation>
    </message>
    <message>
        <source>{what} {v} is absurdly large</source>
        <translation>{what} {v} 大得离谱</translation>
    </message>
    <message>
        <source>{what} is required</source>
        <translation>{what} 是必填项</translation>
    </message>
    <message>
        <source>{what} must be one number</source>
        <translation>{what} 必须是一个数</translation>
    </message>
    <message>
        <source>{what} &apos;{value}&apos; is not a number</source>
        <translation>{what} “{value}”不是数字</translation>
    </message>
    <message>
        <source>{what} must be finite</source>
        <translation>{what} 必须是有限值</translation>
    </message>
    <message>
        <source>{what} {v} is above {maximum}</source>
        <translation>{what} {v} 大于 {maximum}</translation>
    </message>
    <message>
        <source>{what} must be true or false, not {value!r}</source>
        <translation>{what} 必须是 true 或 false，而不是 {value!r}</translation>
    </message>
    <message>
        <source>{what} &apos;{value}&apos; is not one of {choices}</source>
        <translation>{what} “{value}”不在可选值 {choices} 中</translation>
    </message>
    <message>
        <source>{what} must name a layer</source>
        <translation>{what} 必须指定一个层</translation>
    </message>
    <message>
        <source>{what} must list layer names</source>
        <translation>{what} 必须列出层名称</translation>
    </message>
    <message>
        <source>{what}: unknown parameter type {t}</source>
        <translation>{what}：未知的参数类型 {t}</translation>
    </message>
    <message>
        <source>CUDA context and framework runtime per process (typical PyTorch on CUDA 12 with lazy loading; not measured here)</source>
        <translation>每个进程的 CUDA 上下文和框架运行时（典型的 PyTorch + CUDA 12，启用延迟加载；此处未实测）</translation>
    </message>
    <message>
        <source>cuBLAS / cuDNN handles and their loaded kernels</source>
        <translation>cuBLAS / cuDNN 句柄及其加载的内核</translation>
    </message>
    <message>
        <source>allocator rounds every tensor up to this block</source>
        <translation type="vanished">分配器把每个张量向上取整到这个块大小</translation>
    </message>
    <message>
        <source>tensors at least this large are rounded to whole segments</source>
        <translation type="vanished">不小于此大小的张量按整段取整</translation>
    </message>
    <message>
        <source>segment size large tensors are rounded to</source>
        <translation type="vanished">大张量取整所用的段大小</translation>
    </message>
    <message>
        <source>the caching allocator rounds every tensor up to this block (kMinBlockSize, CUDACachingAllocator.cpp)</source>
        <translation>缓存分配器把每个张量向上取整到这个块大小（kMinBlockSize，CUDACachingAllocator.cpp）</translation>
    </message>
    <message>
        <source>requests up to this size come from the small pool (kSmallSize, CUDACachingAllocator.cpp)</source>
        <translation>不超过这个大小的请求来自小内存池（kSmallSize，CUDACachingAllocator.cpp）</translation>
    </message>
    <message>
        <source>segment the small pool reserves at a time (kSmallBuffer, CUDACachingAllocator.cpp)</source>
        <translation>小内存池每次预留的段大小（kSmallBuffer，CUDACachingAllocator.cpp）</translation>
    </message>
    <message>
        <source>convolution algorithm family for the workspace: typical = fastest per layer (Winograd for 3×3, else implicit GEMM) capped at the workspace allowance</source>
        <translation>工作区所用的卷积算法族：typical = 每层最快的算法（3×3 用 Winograd，否则用隐式 GEMM），上限为工作区配额</translation>
    </message>
    <message>
        <source>largest workspace the framework typically grants one convolution (&apos;typical&apos; only)</source>
        <translation>框架通常给一次卷积分配的最大工作区（仅 &apos;typical&apos;）</translation>
    </message>
    <message>
        <source>memory the driver keeps on a card that no process can use (used when judging fit)</source>
        <translation>驱动在显卡上保留、任何进程都不能使用的显存（判断能否装下时使用）</translation>
    </message>
    <message>
        <source>model PyTorch&apos;s caching allocator: tensors in 512-byte blocks, cached segments simulated (c10/cuda/CUDACachingAllocator.cpp); off = exact tensor bytes</source>
        <translation>模拟 PyTorch 的缓存分配器：张量按 512 字节块分配，并模拟缓存的内存段（c10/cuda/CUDACachingAllocator.cpp）；关闭 = 精确的张量字节数</translation>
    </message>
    <message>
        <source>segment the allocator reserves for a 1–10 MiB request (kLargeBuffer, CUDACachingAllocator.cpp)</source>
        <translation>分配器为 1–10 MiB 的请求预留的段大小（kLargeBuffer，CUDACachingAllocator.cpp）</translation>
    </message>
    <message>
        <source>requests from this size get a segment of their own, rounded up (kMinLargeAlloc, CUDACachingAllocator.cpp)</source>
        <translation>从这个大小起，请求获得独立的内存段，并向上取整（kMinLargeAlloc，CUDACachingAllocator.cpp）</translation>
    </message>
    <message>
        <source>what a segment of its own is rounded up to (kRoundLarge, CUDACachingAllocator.cpp)</source>
        <translation>独立内存段向上取整到的单位（kRoundLarge，CUDACachingAllocator.cpp）</translation>
    </message>
    <message>
        <source>cuBLAS workspace held by PyTorch&apos;s allocator once a matmul ran (CUBLAS_WORKSPACE_CONFIG default: 32 MiB on Hopper and newer, 8.125 MiB before; CublasHandlePool.cpp)</source>
        <translation>矩阵乘法运行后由 PyTorch 分配器持有的 cuBLAS 工作区（CUBLAS_WORKSPACE_CONFIG 默认值：Hopper 及更新架构为 32 MiB，之前为 8.125 MiB；CublasHandlePool.cpp）</translation>
    </message>
    <message>
        <source>fraction of the datasheet FP32 rate convolutions and GEMMs reach on the CUDA cores (fitted on measured training throughput: benchmarks/calibrate_speed.py)</source>
        <translation>卷积和 GEMM 在 CUDA 核心上达到的数据手册 FP32 峰值比例（按实测训练吞吐量拟合：benchmarks/calibrate_speed.py）</translation>
    </message>
    <message>
        <source>fraction of the datasheet FP16/BF16 tensor-core rate convolutions and GEMMs reach (0.7, a prior: cuDNN&apos;s large FP16 convolutions; the calibration cannot tell it from the memory efficiency)</source>
        <translation>卷积和 GEMM 达到的数据手册 FP16/BF16 张量核心峰值比例（0.7，先验值：cuDNN 的大型 FP16 卷积；校准无法把它与内存效率区分开）</translation>
    </message>
    <message>
        <source>fraction of the datasheet bandwidth memory-bound layers reach (fitted)</source>
        <translation>受内存带宽限制的层达到的数据手册带宽比例（拟合值）</translation>
    </message>
    <message>
        <source>the shortest time a kernel takes on the GPU (launch and ramp): small layers and small batches do not get faster than this</source>
        <translation>一个 kernel 在 GPU 上的最短耗时（启动与爬升）：小层和小批量不会比这更快</translation>
    </message>
    <message>
        <source>extra factor per architecture on the tensor-core rate (1 where not listed). Blackwell 0.6: PyTorch FP16 matmuls reach about 234 of the RTX 5090&apos;s 419 TFLOPS, where Ada cards reach their whole rated FP32-accumulate rate</source>
        <translation>各架构张量核心速率的额外系数（未列出的为 1）。Blackwell 为 0.6：PyTorch 的 FP16 矩阵乘法在 RTX 5090 上约达到 419 TFLOPS 中的 234，而 Ada 显卡能达到其全部标称 FP32 累加速率</translation>
    </message>
    <message>
        <source>fraction of the datasheet TF32 tensor-core rate convolutions and GEMMs reach (fitted on A100 TF32 rows, with cuDNN&apos;s NCHW TF32 kernels: no layout transposes)</source>
        <translation>卷积和 GEMM 达到的数据手册 TF32 张量核心峰值比例（按 A100 的 TF32 数据拟合，采用 cuDNN 的 NCHW TF32 内核：无布局转置）</translation>
    </message>
    <message>
        <source>depthwise convolutions (MobileNet, EfficientNet) run on the CUDA cores in any precision (no reduction for tensor cores to do): they move their bytes at this fraction of the achievable bandwidth, or take depthwise_sm_cycles_per_byte, whichever is longer (fitted on EfficientNet-B0)</source>
        <translation>深度卷积（MobileNet、EfficientNet）在任何精度下都在 CUDA 核心上运行（没有可交给张量核心的归约）：其数据以可达带宽的这一比例搬运，或按 depthwise_sm_cycles_per_byte 计时，取两者中较长者（在 EfficientNet-B0 上拟合）</translation>
    </message>
    <message>
        <source>SM cycles a depthwise convolution spends per byte of input its multiply-accumulates read (one element each, forward and both gradients, in the precision&apos;s element size): its time is at least its multiply-accumulates × element bytes × this ÷ (SMs × clock), so a 3×3 kernel costs 9/25 of a 5×5 one per output and 16-bit halves it (fitted on EfficientNet-B0: benchmarks/calibrate_speed.py)</source>
        <translation>深度卷积的乘加运算每读取一个字节输入所花费的 SM 周期（每次乘加读取一个元素，前向和两个梯度都计入，元素大小按所选精度）：其时间至少为乘加次数 × 元素字节数 × 此值 ÷（SM 数 × 时钟），因此每个输出上 3×3 卷积核的开销是 5×5 的 9/25，16 位精度使其减半（在 EfficientNet-B0 上拟合：benchmarks/calibrate_speed.py）</translation>
    </message>
    <message>
        <source>fraction of the datasheet TF32 tensor-core rate convolutions and GEMMs reach (fitted on A100 TF32 rows)</source>
        <translation type="vanished">卷积和 GEMM 达到的数据手册 TF32 张量核心峰值比例（按 A100 的 TF32 数据拟合）</translation>
    </message>
    <message>
        <source>speed-up of 3×3 stride-1 convolutions on the FP32 cores from cuDNN&apos;s Winograd algorithm over their direct FLOP count (fitted on VGG-16 and ResNets)</source>
        <translation>FP32 核心上步长为 1 的 3×3 卷积借助 cuDNN 的 Winograd 算法相对其直接 FLOP 数的加速（按 VGG-16 和 ResNet 拟合）</translation>
    </message>
    <message>
        <source>grouped convolutions (ResNeXt) reach this fraction of a dense convolution&apos;s rate (fitted on ResNeXt-101)</source>
        <translation>分组卷积（ResNeXt）达到普通卷积速率的这一比例（按 ResNeXt-101 拟合）</translation>
    </message>
    <message>
        <source>depthwise convolutions (MobileNet, EfficientNet) are memory-bound in any precision (no reduction for tensor cores to do): they move their bytes at this fraction of the achievable bandwidth (fitted on EfficientNet-B0)</source>
        <translation type="vanished">深度卷积（MobileNet、EfficientNet）在任何精度下都受内存带宽限制（没有可交给张量核心的归约）：其数据以可达带宽的这一比例搬运（在 EfficientNet-B0 上拟合）</translation>
    </message>
    <message>
        <source>convolutions run as GEMMs in tiles of 128 pixels × 128, 64 or 32 channels: a layer whose channels do not fill the tiles (Inception&apos;s 48, 80, 96, 192) wastes the rest, or takes a narrower tile that reaches this fraction of the next wider one&apos;s rate (fitted on measured training throughput)</source>
        <translation>卷积以 GEMM 分块运行（128 个像素 × 128、64 或 32 个通道）：通道数填不满分块的层（如 Inception 的 48、80、96、192）会浪费其余部分，或改用更窄的分块，其速率为上一级更宽分块的这一比例（按实测训练吞吐量拟合）</translation>
    </message>
    <message>
        <source>SM cycles per element a memory-bound kernel (normalisation, activations, pooling, adds, layout transposes) spends on its instructions: its time is the larger of its bytes at the achievable bandwidth and its elements × this ÷ (SMs × clock), SMs × clock from the datasheet FP32 rate ÷ (2 × FP32 lanes per SM). Cards with much bandwidth per SM (A100, H100) are limited by it (fitted alone on measured training throughput, the other parameters held: benchmarks/calibrate_speed.py)</source>
        <translation>受内存带宽限制的内核（归一化、激活、池化、加法、布局转置）每处理一个元素在指令上花费的 SM 周期：其时间取字节数按可达带宽所需时间与元素数 × 此值 ÷（SM 数 × 时钟）两者中的较大者，SM 数 × 时钟由规格表 FP32 速率 ÷（2 × 每个 SM 的 FP32 通道数）得出。每个 SM 带宽很高的显卡（A100、H100）受其限制（在其他参数保持不变的情况下，单独按实测训练吞吐量拟合：benchmarks/calibrate_speed.py）</translation>
    </message>
    <message>
        <source>activation layout of the convolutions: nchw, PyTorch&apos;s default, where cuDNN transposes each convolution&apos;s activations to NHWC and back around its tensor-core kernels (extra memory traffic in fp16, bf16 and TF32); channels_last after model.to(memory_format=torch.channels_last), or in TensorFlow and MXNet: no transposes</source>
        <translation type="vanished">卷积的激活布局：nchw 为 PyTorch 的默认布局，cuDNN 在其张量核心内核前后把每个卷积的激活转置为 NHWC 再转回（fp16、bf16 和 TF32 下多出内存流量）；channels_last 用于 model.to(memory_format=torch.channels_last) 之后，或 TensorFlow 与 MXNet：不转置</translation>
    </message>
    <message>
        <source>batch norm kernels apply the ReLU after them, and the residual add between (MXNet&apos;s DeepLearningExamples float16 recipes: --fuse-bn-relu, --fuse-bn-add-relu): the ReLU&apos;s and the add&apos;s memory passes disappear. Off: PyTorch eager runs batch norm, add and ReLU as separate kernels</source>
        <translation>批归一化内核顺带执行其后的 ReLU 以及两者之间的残差加法（MXNet 的 DeepLearningExamples float16 配方：--fuse-bn-relu、--fuse-bn-add-relu）：ReLU 与加法的内存读写不再单独发生。关闭：PyTorch eager 模式将批归一化、加法和 ReLU 作为各自独立的内核运行</translation>
    </message>
    <message>
        <source>how fast the host prepares training inputs (decode, augment, copy to the GPU), in GB/s of fp32 input tensors, if it limits training: 1.9 GB/s is about 3,100 ResNet-50 images/s. 0 (the default) = no limit: the GPU&apos;s own time, as every benchmark row measured it (synthetic data or a loader that keeps up). Measure your loader and enter its rate here</source>
        <translation>主机准备训练输入（解码、增强、复制到 GPU）的速度，以 fp32 输入张量的 GB/s 计，用于它限制训练速度的情形：1.9 GB/s 约为每秒 3,100 张 ResNet-50 图像。0（默认）= 不限：即 GPU 自身的时间，与每一行基准测试的测法相同（合成数据，或数据加载跟得上）。请测量你的数据加载速度并在此填入</translation>
    </message>
    <message>
        <source>activation only</source>
        <translation>仅激活</translation>
    </message>
    <message>
        <source>activation + error</source>
        <translation>激活 + 误差</translation>
    </message>
    <message>
        <source>the article took the output side as input − kernel ({taken} instead of {actual})</source>
        <translation>文章把输出边长取为输入 − 卷积核（{taken}，而不是 {actual}）</translation>
    </message>
    <message>
        <source>depthwise convolutions (MobileNet, EfficientNet) have no reduction for tensor cores: they reach this fraction of the FP32 CUDA-core rate in any precision (fitted on EfficientNet-B0)</source>
        <translation type="vanished">深度卷积（MobileNet、EfficientNet）没有可交给张量核心的归约：无论何种精度，它们都只达到 FP32 CUDA 核心速率的这一比例（按 EfficientNet-B0 拟合）</translation>
    </message>
    <message>
        <source>16-bit data on a card without fast FP16 math: cuDNN and cuBLAS compute it in FP32 (pseudo-half), at this fraction of the FP32 kernels&apos; rate (1 = the same rate: no gain from 16-bit except in memory-bound layers)</source>
        <translation>在没有快速 FP16 运算的显卡上处理 16 位数据：cuDNN 和 cuBLAS 以 FP32 计算（pseudo-half），速率为 FP32 kernel 的这一比例（1 = 相同速率：除受内存限制的层外，16 位没有收益）</translation>
    </message>
    <message>
        <source>extra factor on the FP32 rate of cards whose datasheet FP32 counts a datapath shared with integer work (compute capability 8.6, 8.9 and 12: GeForce and workstation Ampere, Ada, Blackwell): PyTorch FP32 matmuls reach about 65 of an RTX 5090&apos;s 105 TFLOPS, where an A100 reaches nearly all of its 19.5</source>
        <translation>对数据手册 FP32 峰值计入了与整数运算共用的数据通路的显卡（计算能力 8.6、8.9 和 12：GeForce 与工作站级 Ampere、Ada、Blackwell）所乘的 FP32 速率额外系数：PyTorch 的 FP32 矩阵乘法在 RTX 5090 上约达到 105 TFLOPS 中的 65，而 A100 几乎能达到其全部 19.5</translation>
    </message>
    <message>
        <source>CPU time per operator the framework dispatches (PyTorch eager dispatch and autograd, about 10 µs): an iteration is never shorter than all its operators&apos; CPU time</source>
        <translation>框架每分派一个算子所用的 CPU 时间（PyTorch eager 分派与 autograd，约 10 µs）：一次迭代绝不会短于其所有算子的 CPU 时间</translation>
    </message>
    <message>
        <source>under training load a card sustains its boost clock only with its chip&apos;s full board power per SM (the catalog&apos;s card with the whole chip and the most watts per SM: RTX 3090 Ti for GA102, A100 SXM4 for GA100); a variant with less power per SM runs at that card&apos;s boost clock × (its watts per SM ÷ the reference&apos;s) to this power, never above its own boost clock (dynamic power grows about as the clock cubed: 1/3). RTX A6000 at 300 W: 0.90 of its boost clock; A100 PCIe 40GB at 250 W: 0.86; 0 = every card at its boost clock</source>
        <translation>在训练负载下，显卡只有在每个 SM 拥有其芯片满额的板卡功耗时才能保持加速频率（以目录中启用完整芯片且每个 SM 功耗最高的显卡为参照：GA102 为 RTX 3090 Ti，GA100 为 A100 SXM4）；每个 SM 功耗较低的型号以参照卡的加速频率 ×（其每 SM 瓦数 ÷ 参照卡的每 SM 瓦数）的此次幂运行，且不超过其自身的加速频率（动态功耗约随频率的三次方增长：1/3）。300 W 的 RTX A6000：其加速频率的 0.90；250 W 的 A100 PCIe 40GB：0.86；0 = 所有显卡都以加速频率运行</translation>
    </message>
    <message>
        <source>activation layout of the convolutions: nchw, PyTorch&apos;s default, where cuDNN transposes each convolution&apos;s activations to NHWC and back around its 16-bit tensor-core kernels (extra memory traffic in fp16 and bf16; TF32 convolutions run cuDNN&apos;s NCHW kernels, which NVIDIA found as fast on Ampere: TensorFlow keeps NCHW for TF32, pull request 56744); channels_last after model.to(memory_format=torch.channels_last), or in TensorFlow and MXNet: no transposes</source>
        <translation>卷积的激活布局：nchw 为 PyTorch 的默认布局，cuDNN 在其 16 位张量核心内核前后把每个卷积的激活转置为 NHWC 再转回（fp16 和 bf16 下多出内存流量；TF32 卷积使用 cuDNN 的 NCHW 内核，NVIDIA 发现其在 Ampere 上同样快：TensorFlow 对 TF32 保留 NCHW，见拉取请求 56744）；channels_last 用于 model.to(memory_format=torch.channels_last) 之后，或 TensorFlow 与 MXNet：不转置</translation>
    </message>
    <message>
        <source>share of its datasheet bandwidth a streaming kernel (one read, one write per element) reaches, per compute capability, from te42kyfo/gpu-benches gpu-stream: V100 804 of 900 GB/s, A100 40GB 1,381 of 1,555, A40 (GA102) 658 of 696, L40 (AD102) 816 of 864. The memory efficiency was fitted on the V100, so each card&apos;s bandwidth is scaled by its share over the V100&apos;s (GA102 and AD102: 1.06); 1 where its compute capability is not listed</source>
        <translation>流式内核（每个元素读一次、写一次）达到的规格带宽占比，按计算能力列出，来自 te42kyfo/gpu-benches 的 gpu-stream：V100 900 GB/s 中的 804，A100 40GB 1,555 中的 1,381，A40（GA102）696 中的 658，L40（AD102）864 中的 816。内存效率是在 V100 上拟合的，因此每张卡的带宽按其占比与 V100 占比之比缩放（GA102 和 AD102：1.06）；未列出其计算能力时为 1</translation>
    </message>
    <message>
        <source>passes over the attention scores (batch × heads × queries × keys elements, in the precision&apos;s element size) of eager attention per training step, counted from DeepLearningExamples&apos; and Hugging Face&apos;s BERT: forward the q·kᵀ product written (1), the scale and the mask add read and written (2 + 2), softmax (2), dropout (2, plus a one-byte mask), read by the product with v (1); backward the probabilities&apos; gradient written and the probabilities read for v&apos;s (2), dropout (2), softmax (3: gradient and output read), the scale (2), the gradient read for q&apos;s and k&apos;s (2): 21. Flash and memory-efficient attention keep the scores on chip: none</source>
        <translation>eager 注意力每个训练步对注意力分数（批量 × 头数 × 查询数 × 键数个元素，按该精度的元素大小）的读写遍数，按 DeepLearningExamples 与 Hugging Face 的 BERT 计数：前向写出 q·kᵀ 乘积（1），缩放与加掩码各读写一次（2 + 2），softmax（2），dropout（2，另加每元素一字节的掩码），再由与 v 的乘积读取（1）；反向写出概率的梯度并为 v 的梯度读取概率（2），dropout（2），softmax（3：读梯度与输出），缩放（2），为 q 与 k 的梯度读取梯度（2）：共 21。Flash 与 memory-efficient 注意力把分数留在片上：为 0</translation>
    </message>
    <message>
        <source>the optimizer step is a Python loop over the parameters, one kernel per operation and tensor (DeepLearningExamples&apos; BertAdam, torch.optim with foreach=False): Adam 15 kernels and 32 tensor passes per parameter tensor (BertAdam.step: per-tensor gradient clipping, the two moments, the update, weight decay, the learning rate), momentum SGD 3 and 8, SGD 1 and 3; each kernel also costs the host a dispatch. Off: fused multi-tensor kernels (apex FusedAdam, PyTorch&apos;s foreach and fused optimizers)</source>
        <translation>优化器步骤是对参数的 Python 循环，每个运算、每个张量一个 kernel（DeepLearningExamples 的 BertAdam，torch.optim 设 foreach=False）：Adam 每个参数张量 15 个 kernel、32 遍张量读写（BertAdam.step：逐张量梯度裁剪、两个矩、更新、权重衰减、学习率），动量 SGD 3 与 8，SGD 1 与 3；每个 kernel 还要主机分派一次。关闭：融合的多张量 kernel（apex FusedAdam、PyTorch 的 foreach 与 fused 优化器）</translation>
    </message>
    <message>
        <source>how fast the host prepares training inputs (decode, augment, copy to the GPU), in GB/s of fp32 input tensors; 1.9 is about 3,100 ResNet-50 images/s, the plateau measured on H200 and B200 alike; 0 = no limit (synthetic data)</source>
        <translation type="vanished">主机准备训练输入（解码、增强、复制到 GPU）的速度，以 fp32 输入张量的 GB/s 计；1.9 约为每秒 3,100 张 ResNet-50 图像，即在 H200 和 B200 上都测得的平台值；0 = 不限（合成数据）</translation>
    </message>
    <message>
        <source>Gradient buffers and temporaries</source>
        <translation>梯度缓冲区与临时张量</translation>
    </message>
    <message>
        <source>cuDNN / cuBLAS workspace</source>
        <translation>cuDNN / cuBLAS 工作区</translation>
    </message>
    <message>
        <source>Allocator rounding (512-byte blocks)</source>
        <translation>分配器取整（512 字节块）</translation>
    </message>
    <message>
        <source>Activations (inputs and outputs alive)</source>
        <translation>激活（存活的输入与输出）</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>recompute</source>
        <translation>重算</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>优化器步骤</translation>
    </message>
    <message>
        <source>fraction of the datasheet FP32 rate large convolutions reach</source>
        <translation type="vanished">大卷积能达到的标称 FP32 算力比例</translation>
    </message>
    <message>
        <source>fraction of the datasheet tensor-core rate reached</source>
        <translation type="vanished">能达到的标称张量核心算力比例</translation>
    </message>
    <message>
        <source>fraction of the datasheet bandwidth reached</source>
        <translation type="vanished">能达到的标称带宽比例</translation>
    </message>
    <message>
        <source>extra factor per architecture (older ones reach less of their peak; calibrated to the article&apos;s table)</source>
        <translation>每种架构的额外系数（老架构达到的峰值比例更低；按文章中的表格校准）</translation>
    </message>
    <message>
        <source>independent outputs per CUDA core a kernel needs to fill the card (small networks fill it less)</source>
        <translation>内核填满显卡所需的每个 CUDA 核心的独立输出数（小网络填不满）</translation>
    </message>
    <message>
        <source>fixed cost of launching one layer&apos;s kernel</source>
        <translation type="vanished">启动一个层的内核的固定开销</translation>
    </message>
    <message>
        <source>CUDA context + libraries</source>
        <translation>CUDA 上下文 + 库</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>16-bit weight copies (autocast)</source>
        <translation>16 位权重副本（autocast）</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>Activations kept for backward</source>
        <translation>为反向传播保留的激活</translation>
    </message>
    <message>
        <source>Gradient buffers (backward peak)</source>
        <translation type="vanished">梯度缓冲区（反向传播峰值）</translation>
    </message>
    <message>
        <source>Convolution workspace</source>
        <translation type="vanished">卷积工作区</translation>
    </message>
    <message>
        <source>FP32 (PyTorch defaults: TF32 convolutions on Ampere+)</source>
        <translation>FP32（PyTorch 默认：Ampere 及更新架构上卷积用 TF32）</translation>
    </message>
    <message>
        <source>FP32 strict (TF32 off)</source>
        <translation>严格 FP32（关闭 TF32）</translation>
    </message>
    <message>
        <source>TF32 (convolutions and matmuls)</source>
        <translation>TF32（卷积和矩阵乘法）</translation>
    </message>
    <message>
        <source>Mixed FP16 (autocast + GradScaler)</source>
        <translation>混合 FP16（autocast + GradScaler）</translation>
    </message>
    <message>
        <source>Mixed BF16 (autocast)</source>
        <translation>混合 BF16（autocast）</translation>
    </message>
    <message>
        <source>Pure FP16 (model.half())</source>
        <translation type="vanished">纯 FP16（model.half()）</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>FP32 strict</source>
        <translation>严格 FP32</translation>
    </message>
    <message>
        <source>TF32</source>
        <translation>TF32</translation>
    </message>
    <message>
        <source>Mixed FP16</source>
        <translation>混合 FP16</translation>
    </message>
    <message>
        <source>Mixed BF16</source>
        <translation>混合 BF16</translation>
    </message>
    <message>
        <source>Pure FP16</source>
        <translation>纯 FP16</translation>
    </message>
    <message>
        <source>Pure BF16</source>
        <translation>纯 BF16</translation>
    </message>
    <message>
        <source>Pure FP16 (fp16 weights)</source>
        <translation>纯 FP16（fp16 权重）</translation>
    </message>
    <message>
        <source>Pure BF16 (bf16 weights)</source>
        <translation>纯 BF16（bf16 权重）</translation>
    </message>
    <message>
        <source>batch size must be a whole number, not {batch_size!r}</source>
        <translation>批量大小必须是整数，而不是 {batch_size!r}</translation>
    </message>
    <message>
        <source>batch size {batch_size} must be between 1 and {MAX_BATCH}</source>
        <translation>批量大小 {batch_size} 必须在 1 到 {MAX_BATCH} 之间</translation>
    </message>
    <message>
        <source>precision &apos;{precision}&apos; is not one of {choices}</source>
        <translation>精度“{precision}”不在可选值 {choices} 中</translation>
    </message>
    <message>
        <source>optimizer &apos;{optimizer}&apos; is not one of {choices}</source>
        <translation>优化器“{optimizer}”不在可选值 {choices} 中</translation>
    </message>
    <message>
        <source>mode &apos;{mode}&apos; is not one of {choices}</source>
        <translation>模式“{mode}”不在可选值 {choices} 中</translation>
    </message>
    <message>
        <source>checkpointing must be true or false, not {checkpointing!r}</source>
        <translation>checkpointing 必须是 true 或 false，而不是 {checkpointing!r}</translation>
    </message>
    <message>
        <source>gradient accumulation must be a whole number of micro-batches from 1 to 4096, not {accumulation!r}</source>
        <translation>梯度累积必须是 1 到 4096 之间的整数个微批次，而不是 {accumulation!r}</translation>
    </message>
    <message>
        <source>the draft has no input layer</source>
        <translation>草稿中没有输入层</translation>
    </message>
    <message>
        <source>layer {index} ({name}): {message}</source>
        <translation>第 {index} 层（{name}）：{message}</translation>
    </message>
    <message>
        <source>the draft has no layers</source>
        <translation>草稿中没有任何层</translation>
    </message>
    <message>
        <source>every layer needs a name</source>
        <translation>每个层都需要名称</translation>
    </message>
    <message>
        <source>the name &apos;{name}&apos; is already used by an earlier layer</source>
        <translation>名称“{name}”已被前面的层使用</translation>
    </message>
    <message>
        <source>unknown layer type &apos;{kind}&apos;</source>
        <translation>未知的层类型“{kind}”</translation>
    </message>
    <message>
        <source>the first layer must be the input</source>
        <translation>第一层必须是输入层</translation>
    </message>
    <message>
        <source>only the first layer can be an input</source>
        <translation>只有第一层可以是输入层</translation>
    </message>
    <message>
        <source>&apos;input&apos; names &apos;{src}&apos;, which is not an earlier layer</source>
        <translation>&apos;input&apos; 指定的“{src}”不是前面的层</translation>
    </message>
    <message>
        <source>&apos;from&apos; names &apos;{ref}&apos;, which is not an earlier layer</source>
        <translation>&apos;from&apos; 指定的“{ref}”不是前面的层</translation>
    </message>
    <message>
        <source>&apos;from&apos; must name an earlier layer</source>
        <translation>&apos;from&apos; 必须指定一个前面的层</translation>
    </message>
    <message>
        <source>the tensors of the network hold {total} elements per sample, beyond the bound of {bound}</source>
        <translation>网络的张量每个样本共 {total} 个元素，超出上限 {bound}</translation>
    </message>
    <message>
        <source>output {out_shape} is empty</source>
        <translation>输出 {out_shape} 为空</translation>
    </message>
    <message>
        <source>invalid parameters ({problem})</source>
        <translation>参数无效（{problem}）</translation>
    </message>
    <message>
        <source>output elements</source>
        <translation>输出元素</translation>
    </message>
    <message>
        <source>input elements</source>
        <translation>输入元素</translation>
    </message>
    <message>
        <source>parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>weight elements</source>
        <translation>权重元素</translation>
    </message>
    <message>
        <source>forward FLOPs</source>
        <translation>前向 FLOPs</translation>
    </message>
    <message>
        <source>backward FLOPs</source>
        <translation>反向 FLOPs</translation>
    </message>
    <message>
        <source>{what}: {value} per sample is beyond the bound of {bound}</source>
        <translation>{what}：每个样本 {value}，超出上限 {bound}</translation>
    </message>
    <message>
        <source>saved elements</source>
        <translation>保存的元素</translation>
    </message>
    <message>
        <source>{where}: expected an object with &apos;layers&apos;</source>
        <translation>{where}：应为包含 &apos;layers&apos; 的对象</translation>
    </message>
    <message>
        <source>{where}: &apos;layers&apos; must be a non-empty list</source>
        <translation>{where}：&apos;layers&apos; 必须是非空列表</translation>
    </message>
    <message>
        <source>{at}.name: a repeated block needs a name</source>
        <translation>{at}.name：重复块需要名称</translation>
    </message>
    <message>
        <source>{at}.layers: a repeated block needs a non-empty list of layers</source>
        <translation>{at}.layers：重复块需要非空的层列表</translation>
    </message>
    <message>
        <source>{at}: a repeated block cannot come first (the input does)</source>
        <translation>{at}：重复块不能放在最前面（最前面是输入层）</translation>
    </message>
    <message>
        <source>{at}.layers: a repeated block cannot hold an input</source>
        <translation>{at}.layers：重复块不能包含输入层</translation>
    </message>
    <message>
        <source>{at}.times: {problem}</source>
        <translation>{at}.times：{problem}</translation>
    </message>
    <message>
        <source>{at}: expected an object</source>
        <translation>{at}：应为对象</translation>
    </message>
    <message>
        <source>{at}.type: unknown layer type {kind!r}</source>
        <translation>{at}.type：未知的层类型 {kind!r}</translation>
    </message>
    <message>
        <source>{at}.name: every layer needs a name</source>
        <translation>{at}.name：每个层都需要名称</translation>
    </message>
    <message>
        <source>{at}.name: longer than {limit} characters</source>
        <translation>{at}.name：超过 {limit} 个字符</translation>
    </message>
    <message>
        <source>{at}.{key}: &apos;{kind}&apos; layers have no parameter &apos;{key}&apos;</source>
        <translation>{at}.{key}：&apos;{kind}&apos; 层没有参数 &apos;{key}&apos;</translation>
    </message>
    <message>
        <source>{at}.{key}: {problem}</source>
        <translation>{at}.{key}：{problem}</translation>
    </message>
    <message>
        <source>{where}: name must be text</source>
        <translation>{where}：name 必须是文本</translation>
    </message>
    <message>
        <source>{where}: setup must be an object</source>
        <translation>{where}：setup 必须是对象</translation>
    </message>
    <message>
        <source>{where}: setup.{key}: unknown setting</source>
        <translation>{where}：setup.{key}：未知的设置</translation>
    </message>
    <message>
        <source>{where}: setup: {problem}</source>
        <translation>{where}：setup：{problem}</translation>
    </message>
    <message>
        <source>{where}: parallel must be an object with gpus, nodes and strategy</source>
        <translation>{where}：parallel 必须是包含 gpus、nodes 和 strategy 的对象</translation>
    </message>
    <message>
        <source>{where}: parallel.{field} is missing or not valid ({value!r})</source>
        <translation>{where}：parallel.{field} 缺失或无效（{value!r}）</translation>
    </message>
    <message>
        <source>{where}: not a plan (expected a JSON object)</source>
        <translation>{where}：不是方案文件（应为 JSON 对象）</translation>
    </message>
    <message>
        <source>{where}: schema_version is missing (is this a GPU Planner plan?)</source>
        <translation>{where}：缺少 schema_version（这是 GPU Planner 的方案吗？）</translation>
    </message>
    <message>
        <source>{where}: schema_version {version!r} is not valid</source>
        <translation>{where}：schema_version {version!r} 无效</translation>
    </message>
    <message>
        <source>{where}: schema_version {version} is newer than this app understands ({SCHEMA_VERSION}); update GPU Planner</source>
        <translation>{where}：schema_version {version} 比本程序能理解的版本（{SCHEMA_VERSION}）更新；请更新 GPU Planner</translation>
    </message>
    <message>
        <source>{where}: is a folder, not a plan file</source>
        <translation>{where}：是文件夹，不是方案文件</translation>
    </message>
    <message>
        <source>{where}: no such file</source>
        <translation>{where}：文件不存在</translation>
    </message>
    <message>
        <source>{where}: cannot be read ({problem})</source>
        <translation>{where}：无法读取（{problem}）</translation>
    </message>
    <message>
        <source>{where}: not valid JSON (line {lineno}: {msg})</source>
        <translation>{where}：不是有效的 JSON（第 {lineno} 行：{msg}）</translation>
    </message>
    <message>
        <source>Train in 16-bit (mixed precision)</source>
        <translation>用 16 位训练（混合精度）</translation>
    </message>
    <message>
        <source>Activations, gradients and weights in 16 bits, an fp32 master copy of the weights for the optimizer.</source>
        <translation type="vanished">激活、梯度和权重都用 16 位，另为优化器保留一份 fp32 主权重。</translation>
    </message>
    <message>
        <source>torch.autocast: convolutions and linear layers compute in 16 bits and keep 16-bit activations and weight copies; weights, gradients and optimizer state stay fp32.</source>
        <translation>torch.autocast：卷积层和全连接层以 16 位计算，并保留 16 位的激活和权重副本；权重、梯度和优化器状态仍为 fp32。</translation>
    </message>
    <message>
        <source>The article: 16-bit halves memory without hurting classification; keep fp32 master weights and loss scaling (what mixed precision does).</source>
        <translation>文章指出：16 位能让显存减半且不影响分类效果；保留 fp32 主权重并做损失缩放（混合精度正是如此）。</translation>
    </message>
    <message>
        <source>A smaller mini-batch is the last resort: convolution kernels are tuned for 64 and more.</source>
        <translation>减小小批量是最后的手段：卷积内核是针对 64 及以上的批量调优的。</translation>
    </message>
    <message>
        <source>Batch {half} is below 32: the article warns training then slows down markedly. {caution}</source>
        <translation>批量 {half} 小于 32：文章警告此时训练会明显变慢。{caution}</translation>
    </message>
    <message>
        <source>Halve the batch ({batch} → {half})</source>
        <translation>批量减半（{batch} → {half}）</translation>
    </message>
    <message>
        <source>Activations and gradient buffers scale with the batch.</source>
        <translation>激活和梯度缓冲区随批量大小线性变化。</translation>
    </message>
    <message>
        <source>Stride 2 in the first convolution ({name})</source>
        <translation>第一个卷积（{name}）使用步幅 2</translation>
    </message>
    <message>
        <source>Every later feature map has a quarter of the values.</source>
        <translation>之后的每个特征图都只剩四分之一的数值。</translation>
    </message>
    <message>
        <source>Throws away three quarters of the first layer&apos;s outputs; accuracy can suffer, especially on small inputs.</source>
        <translation>丢弃第一层四分之三的输出；准确率可能下降，尤其是输入较小时。</translation>
    </message>
    <message>
        <source>2×2 max pool after {name}</source>
        <translation>在 {name} 之后加 2×2 最大池化</translation>
    </message>
    <message>
        <source>Everything after the pool has a quarter of the values.</source>
        <translation>池化之后的一切都只剩四分之一的数值。</translation>
    </message>
    <message>
        <source>Pooling discards position detail; the article warns that overusing reduction techniques hurts accuracy.</source>
        <translation>池化会丢弃位置细节；文章警告过度使用削减技巧会损害准确率。</translation>
    </message>
    <message>
        <source>1×1 reduction after {name} ({channels} → {reduced} channels)</source>
        <translation>在 {name} 之后加 1×1 降维（{channels} → {reduced} 个通道）</translation>
    </message>
    <message>
        <source>What follows sees a third of the channels (the article: 32 1×1 filters cut a 340 MB layer to 113 MB).</source>
        <translation>之后的层只看到三分之一的通道（文章中：32 个 1×1 过滤器把一个 340 MB 的层减到 113 MB）。</translation>
    </message>
    <message>
        <source>A bottleneck throws information away; use it where channels are plentiful.</source>
        <translation>瓶颈层会丢弃信息；请在通道充裕的地方使用。</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>Keep only √n segment outputs and recompute each segment during backward.</source>
        <translation>只保留 √n 个分段的输出，反向传播时重新计算每个分段。</translation>
    </message>
    <message>
        <source>Costs about one extra forward pass (roughly a third more compute per iteration); throws nothing away.</source>
        <translation>大约多一次前向传播（每次迭代多约三分之一的计算量）；不丢弃任何信息。</translation>
    </message>
    <message>
        <source>Communication buffers</source>
        <translation>通信缓冲区</translation>
    </message>
    <message>
        <source>Gathered weights (sharded)</source>
        <translation>收集的权重（分片）</translation>
    </message>
    <message>
        <source>Seed article example</source>
        <translation>原文示例</translation>
    </message>
    <message>
        <source>The article&apos;s worked example: batch 128, 250×250×3 inputs, unpadded 3×3 convolutions with 32, 64 and 96 filters.</source>
        <translation>原文的计算示例：批量大小 128，250×250×3 输入，无填充的 3×3 卷积，卷积核数分别为 32、64、96。</translation>
    </message>
    <message>
        <source>Seed article example, reduced</source>
        <translation>原文示例（减小内存版）</translation>
    </message>
    <message>
        <source>The article&apos;s memory-reduction variant: stride 2 in the first convolution, a 2×2 max pool after it, and 32 1×1 filters to reduce the 96 channels.</source>
        <translation>原文的内存减小变体：第一层卷积步长为 2，其后接 2×2 最大池化，再用 32 个 1×1 卷积核把 96 个通道降下来。</translation>
    </message>
    <message>
        <source>torchvision alexnet (224×224×3, 1000 classes).</source>
        <translation>torchvision alexnet（224×224×3，1000 类）。</translation>
    </message>
    <message>
        <source>torchvision vgg16 (224×224×3, 1000 classes, 138,357,544 parameters).</source>
        <translation>torchvision vgg16（224×224×3，1000 类，138,357,544 个参数）。</translation>
    </message>
    <message>
        <source>torchvision resnet18 (224×224×3, 1000 classes).</source>
        <translation>torchvision resnet18（224×224×3，1000 类）。</translation>
    </message>
    <message>
        <source>torchvision resnet50 (224×224×3, 1000 classes).</source>
        <translation>torchvision resnet50（224×224×3，1000 类）。</translation>
    </message>
    <message>
        <source>torchvision mobilenet_v2 (224×224×3, 1000 classes).</source>
        <translation>torchvision mobilenet_v2（224×224×3，1000 类）。</translation>
    </message>
    <message>
        <source>LSTM, 128 hidden units</source>
        <translation>LSTM，128 个隐藏单元</translation>
    </message>
    <message>
        <source>The article&apos;s small LSTM: 128 hidden units, 100 steps of 128 features, batch 128 (the article: batch &gt; 64).</source>
        <translation>原文中的小型 LSTM：128 个隐藏单元，100 步、每步 128 个特征，批量大小 128（原文：批量大于 64）。</translation>
    </message>
    <message>
        <source>LSTM, 1024 hidden units</source>
        <translation>LSTM，1024 个隐藏单元</translation>
    </message>
    <message>
        <source>The article&apos;s large LSTM: 1024 hidden units, 100 steps of 1024 features, batch 128 (the article: batch &gt; 64).</source>
        <translation>原文中的大型 LSTM：1024 个隐藏单元，100 步、每步 1024 个特征，批量大小 128（原文：批量大于 64）。</translation>
    </message>
    <message>
        <source>Plankton classifier</source>
        <translation>浮游生物分类器</translation>
    </message>
    <message>
        <source>A small CNN for the article&apos;s plankton-sized problem: 50×50×2 inputs, about 100 classes.</source>
        <translation>针对原文浮游生物规模问题的小型 CNN：50×50×2 输入，约 100 类。</translation>
    </message>
    <message>
        <source>Video (25×75×75×3)</source>
        <translation>视频（25×75×75×3）</translation>
    </message>
    <message>
        <source>A small 3-D CNN on the article&apos;s video example: 25 frames of 75×75×3.</source>
        <translation>针对原文视频示例的小型三维 CNN：25 帧 75×75×3。</translation>
    </message>
    <message>
        <source>torchvision resnet152 (224×224×3, 1000 classes).</source>
        <translation>torchvision resnet152（224×224×3，1000 类）。</translation>
    </message>
    <message>
        <source>ResNeXt-101 32×4d as NVIDIA&apos;s DeepLearningExamples train it: torchvision&apos;s ResNet with groups=32, width_per_group=4 (224×224×3, 1000 classes).</source>
        <translation>NVIDIA DeepLearningExamples 所训练的 ResNeXt-101 32×4d：torchvision 的 ResNet，groups=32、width_per_group=4（224×224×3，1000 类）。</translation>
    </message>
    <message>
        <source>SE-ResNeXt-101 32×4d as NVIDIA&apos;s DeepLearningExamples define it: ResNeXt-101 32×4d with a squeeze-and-excitation block (16 channels) before each residual add (224×224×3, 1000 classes).</source>
        <translation>按 NVIDIA DeepLearningExamples 的定义构建的 SE-ResNeXt-101 32×4d：在 ResNeXt-101 32×4d 的每个残差相加之前加入一个 squeeze-and-excitation 模块（16 个通道）（224×224×3，1000 类）。</translation>
    </message>
    <message>
        <source>torchvision efficientnet_b0 (224×224×3, 1000 classes); the squeeze-and-excitation product is an element-wise layer.</source>
        <translation>torchvision efficientnet_b0（224×224×3，1000 类）；squeeze-and-excitation 的乘法是一个“逐元素”层。</translation>
    </message>
    <message>
        <source>torchvision efficientnet_b4 (380×380×3, 1000 classes); the squeeze-and-excitation product is an element-wise layer.</source>
        <translation>torchvision efficientnet_b4（380×380×3，1000 类）；squeeze-and-excitation 的乘法是一个“逐元素”层。</translation>
    </message>
    <message>
        <source>SE-ResNeXt-101 32×4d as NVIDIA&apos;s DeepLearningExamples define it: ResNeXt-101 32×4d with a squeeze-and-excitation block (16 channels) before each residual add (224×224×3, 1000 classes); the excitation product is an &apos;other operation&apos; layer.</source>
        <translation type="vanished">按 NVIDIA DeepLearningExamples 的定义构建的 SE-ResNeXt-101 32×4d：在 ResNeXt-101 32×4d 的每个残差相加之前加入一个挤压-激励模块（16 个通道）（224×224×3，1000 类）；激励乘积是一个“其他运算”层。</translation>
    </message>
    <message>
        <source>torchvision resnext101_32x8d (224×224×3, 1000 classes).</source>
        <translation>torchvision resnext101_32x8d（224×224×3，1000 类）。</translation>
    </message>
    <message>
        <source>torchvision inception_v3 without the auxiliary classifier (299×299×3, 1000 classes).</source>
        <translation>不含辅助分类器的 torchvision inception_v3（299×299×3，1000 类）。</translation>
    </message>
    <message>
        <source>torchvision efficientnet_b0 (224×224×3, 1000 classes); the squeeze-and-excitation product is an &apos;other operation&apos; layer.</source>
        <translation type="vanished">torchvision efficientnet_b0（224×224×3，1000 类）；squeeze-and-excitation 的乘法是一个“其他运算”层。</translation>
    </message>
    <message>
        <source>torchvision efficientnet_b4 (380×380×3, 1000 classes); the squeeze-and-excitation product is an &apos;other operation&apos; layer.</source>
        <translation type="vanished">torchvision efficientnet_b4（380×380×3，1000 类）；squeeze-and-excitation 的乘法是一个“其他运算”层。</translation>
    </message>
    <message>
        <source>No NVIDIA driver found — planning and advice still work</source>
        <translation>未找到 NVIDIA 驱动 — 规划和购买建议仍可使用</translation>
    </message>
    <message>
        <source>Not permitted to read the NVIDIA driver (NVML: insufficient permissions) — planning and advice still work</source>
        <translation>无权读取 NVIDIA 驱动（NVML：权限不足）— 规划和购买建议仍可使用</translation>
    </message>
    <message>
        <source>a folder</source>
        <translation>一个文件夹</translation>
    </message>
    <message>
        <source>a pipe (FIFO)</source>
        <translation>一个管道（FIFO）</translation>
    </message>
    <message>
        <source>a device</source>
        <translation>一个设备</translation>
    </message>
    <message>
        <source>a socket</source>
        <translation>一个套接字</translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <source>{where} is {kind}, not a file</source>
        <translation>{where} 是{kind}，不是文件</translation>
    </message>
    <message>
        <source>{where} is larger than {limit} MiB; it was not read</source>
        <translation>{where} 大于 {limit} MiB；未读取</translation>
    </message>
    <message>
        <source>{where} is not UTF-8 text (byte {offset})</source>
        <translation>{where} 不是 UTF-8 文本（第 {offset} 字节）</translation>
    </message>
    <message>
        <source>a number with {digits} digits is absurdly large</source>
        <translation>一个 {digits} 位的数字大得离谱</translation>
    </message>
    <message>
        <source>JSON nested more than {depth} levels deep</source>
        <translation>JSON 嵌套超过 {depth} 层</translation>
    </message>
    <message>
        <source>the catalog has no confirmed tensor-core rate with FP32 accumulate for this card: estimated at half its FP16-accumulate rate</source>
        <translation>目录中没有这张卡经确认的 FP32 累加张量核心速率：按其 FP16 累加速率的一半估计</translation>
    </message>
    <message>
        <source>FP16 arithmetic runs at 1/64 of FP32 on this card: 16-bit training runs no faster than fp32 here, often slower; train in fp32</source>
        <translation>这张卡上 FP16 运算只有 FP32 的 1/64：16 位训练不会比 fp32 快，往往更慢；请用 fp32 训练</translation>
    </message>
    <message>
        <source>no BF16 tensor cores on this card: bf16 runs on the FP32 cores; use fp16 mixed precision</source>
        <translation>这张卡没有 BF16 张量核心：bf16 在 FP32 核心上运行；请使用 fp16 混合精度</translation>
    </message>
    <message>
        <source>the catalog has no FP16 tensor-core rate for this card: 16-bit work is estimated at the FP32 rate</source>
        <translation>目录中没有这张卡的 FP16 张量核心速率：16 位计算按 FP32 速率估计</translation>
    </message>
    <message>
        <source>no tensor cores: 16-bit training runs no faster than fp32 here</source>
        <translation>没有张量核心：这里 16 位训练不会比 fp32 快</translation>
    </message>
    <message>
        <source>limited by the host (the CPU dispatching kernels or preparing inputs), not by the card</source>
        <translation>受主机限制（CPU 分派 kernel 或准备输入），而不是受显卡限制</translation>
    </message>
    <message>
        <source>convolutions in PyTorch&apos;s default NCHW layout: cuDNN transposes their activations around its tensor-core kernels, a large part of this step; channels_last (model.to(memory_format=torch.channels_last)) runs faster. Assumption: memory_format</source>
        <translation>卷积使用 PyTorch 默认的 NCHW 布局：cuDNN 在其张量核心内核前后转置激活，占了这一步的很大一部分；channels_last（model.to(memory_format=torch.channels_last)）运行更快。假设项：memory_format</translation>
    </message>
    <message>
        <source>no benchmark measured training throughput on this kind of card (its compute capability) in this precision: no error band</source>
        <translation>没有基准测试在这类显卡（其计算能力）上以此精度测量过训练吞吐量：无误差带</translation>
    </message>
    <message>
        <source>this network has layers the speed calibration did not check: no error band</source>
        <translation>这个网络含有速度校准未检验过的层：没有误差范围</translation>
    </message>
    <message>
        <source>the import ran out of memory</source>
        <translation>导入时内存不足</translation>
    </message>
    <message>
        <source>did not stop</source>
        <translation>未能停止</translation>
    </message>
    <message>
        <source>was killed ({signal}: out of memory?)</source>
        <translation>被终止（{signal}：内存不足？）</translation>
    </message>
    <message>
        <source>crashed ({signal})</source>
        <translation>崩溃（{signal}）</translation>
    </message>
    <message>
        <source>exited with status {code}</source>
        <translation>以状态 {code} 退出</translation>
    </message>
    <message>
        <source>{what}: the import process {how} before it answered</source>
        <translation>{what}：导入进程在给出结果前{how}</translation>
    </message>
    <message>
        <source>The largest batch whose estimated peak fits in {usable}: the card&apos;s {total} less the {reserve} its driver keeps (the driver reserve, an editable assumption)</source>
        <translation>估计峰值能放进 {usable} 的最大批量：显卡的 {total} 减去驱动保留的 {reserve}（驱动保留量，可编辑的假设）</translation>
    </message>
    <message>
        <source>Opening ONNX files needs the onnx package: pip install onnx</source>
        <translation>打开 ONNX 文件需要 onnx 软件包：pip install onnx</translation>
    </message>
    <message>
        <source>This file was exported for inference (eval mode){what}. Training has them: the plan puts the batch norms back (parameters and what they keep for backward), but dropout layers the export removed are not planned. For a file that matches training, export with model.train() and torch.onnx.export(model, (x,), &apos;m.onnx&apos;, dynamo=False, do_constant_folding=False, training=torch.onnx.TrainingMode.TRAINING) (the default exporter folds batch norms even in training mode).</source>
        <translation>该文件是为推理导出的（eval 模式）{what}。训练时这些都存在：计划会把批归一化补回（参数以及它们为反向传播保留的张量），但导出时移除的 dropout 层不会计入计划。要得到与训练一致的文件，请使用 model.train() 并以 torch.onnx.export(model, (x,), &apos;m.onnx&apos;, dynamo=False, do_constant_folding=False, training=torch.onnx.TrainingMode.TRAINING) 导出（默认导出器即使在训练模式下也会折叠批归一化）。</translation>
    </message>
    <message>
        <source>: {n} batch norm(s) were folded into the convolutions before them, so their parameters and saved tensors are not in the file (nor whether those convolutions had a bias of their own: the plan assumes not, the usual convolution + norm pair)</source>
        <translation type="vanished">：{n} 个批归一化被折叠进其前面的卷积，因此文件中没有它们的参数和保留张量（也无法得知这些卷积原本是否有自己的偏置：计划假定没有，即常见的卷积 + 归一化组合）</translation>
    </message>
    <message>
        <source>: {n} batch norm(s) were folded into the convolutions before them, so their parameters and saved tensors are not in the file (nor whether those convolutions had a bias of their own: the plan assumes not, the usual convolution + norm pair; if they had, it counts up to {bias} parameters too few)</source>
        <translation>：{n} 个批归一化被折叠进其前面的卷积，因此文件中没有它们的参数和保留张量（也无法得知这些卷积原本是否有自己的偏置：计划假定没有，即常见的卷积 + 归一化组合；若有，计划最多少算 {bias} 个参数）</translation>
    </message>
    <message>
        <source>: {n} batch norm(s) were folded into the convolutions before them, so their parameters and saved tensors are not in the file ({own} of those convolutions had a bias of their own, as the exported program&apos;s signature in the file says: counted)</source>
        <translation>：{n} 个批归一化被折叠进其前面的卷积，因此文件中没有它们的参数和保留张量（据文件中导出程序的签名，其中 {own} 个卷积原本有自己的偏置：已计入）</translation>
    </message>
    <message>
        <source>: its {n} batch norm(s) use running statistics; the plan counts what training keeps</source>
        <translation>：其 {n} 个批归一化使用运行统计量；计划按训练时保留的内容计算</translation>
    </message>
    <message>
        <source>{n} GELU block(s) written out as several operators were planned as one layer each (what PyTorch keeps for them).</source>
        <translation>{n} 个由多个算子写成的 GELU 块各按一层计划（即 PyTorch 为其保留的内容）。</translation>
    </message>
    <message>
        <source>{n} layer norm block(s) written out as several operators were planned as one layer each (what PyTorch keeps for them).</source>
        <translation>{n} 个由多个算子写成的层归一化块各按一层计划（即 PyTorch 为其保留的内容）。</translation>
    </message>
    <message>
        <source>{n} RMSNorm block(s) written out as several operators were planned as one norm each (what PyTorch keeps for them).</source>
        <translation>{n} 个由多个算子写成的 RMSNorm 块各按一个归一化计划（即 PyTorch 为其保留的内容）。</translation>
    </message>
    <message>
        <source>{n} scaled-dot-product attention block(s) were planned as PyTorch&apos;s fused kernel on CUDA (flash or memory-efficient: it keeps q, k, v, the output and a logsumexp per row, also with dropout). Where training runs the math kernel instead (attention weights returned, a CPU run with dropout), each also keeps its T×T probabilities: more memory than planned.</source>
        <translation>{n} 个缩放点积注意力块按 PyTorch 在 CUDA 上的融合内核计划（flash 或 memory-efficient：保留 q、k、v、输出以及每行一个 logsumexp，带 dropout 时亦然）。若训练改用数学内核（返回注意力权重、在 CPU 上带 dropout 运行），每块还会保留其 T×T 概率矩阵：所需显存多于计划。</translation>
    </message>
    <message>
        <source>{n} attention block(s) add a T×T bias to their scores (relative positions, a window mask). The plan assumes PyTorch&apos;s memory-efficient kernel, which CUDA runs for them; it also keeps the bias itself, not counted where the bias is per sample (shifted windows). Where the math kernel runs instead (on the CPU, with a head size or GPU the fused kernels refuse, or with attention weights returned), each block also keeps its T×T softmax: {mib} MiB more at batch {batch} in fp32.</source>
        <translation>{n} 个注意力块在得分上加了 T×T 偏置（相对位置、窗口掩码）。规划假定 PyTorch 的内存高效内核（CUDA 为它们运行此内核）；该内核还保留偏置本身，偏置按样本变化时（移位窗口）未计入。若改用数学内核（在 CPU 上、融合内核拒绝的头大小或 GPU、或返回注意力权重时），每个块还保留其 T×T softmax：在 fp32、批大小 {batch} 时多 {mib} MiB。</translation>
    </message>
    <message>
        <source>{n} batched product(s) multiply an activation by a tensor the file computes from parameters alone (relative-position keys and queries, as in DeBERTa). The plan has that tensor once, not per sample; where the network repeats it over the batch for the product (DeBERTa does), training also keeps each sample&apos;s copy: {mib} MiB more at batch {batch} in fp32.</source>
        <translation>{n} 个批量乘积将激活与文件仅由参数计算出的张量相乘（相对位置的键和查询，如 DeBERTa）。计划只计该张量一次，而非每个样本一份；若网络为该乘积在批次上重复它（DeBERTa 就是如此），训练还会保留每个样本的副本：批次 {batch}、fp32 下多 {mib} MiB。</translation>
    </message>
    <message>
        <source>This file comes from PyTorch&apos;s default exporter (its names say so) but lost the exporter&apos;s record of the traced operations (metadata stripped by an optimiser or a re-save). The default exporter folds batch norms into the convolutions before them, also in training mode, and removes all-zero biases; only that record tells which of the {n} convolution(s) had them, so the plan has none: if the network has batch norms, their parameters and what they keep for backward are missing (about half of the saved bytes on a ResNet). Open the file as exported, or export with dynamo=False, do_constant_folding=False and training=torch.onnx.TrainingMode.TRAINING.</source>
        <translation>此文件来自 PyTorch 的默认导出器（从命名可以看出），但已丢失导出器对所追踪运算的记录（元数据被优化器或重新保存去掉）。默认导出器会把批归一化折叠进其前面的卷积（训练模式下也是），并删除全零的偏置；只有该记录能说明 {n} 个卷积中哪些有过它们，因此方案中没有：如果网络含批归一化，其参数及为反向传播保留的内容都缺失（在 ResNet 上约为保存字节的一半）。请打开原始导出的文件，或使用 dynamo=False、do_constant_folding=False 和 training=torch.onnx.TrainingMode.TRAINING 导出。</translation>
    </message>
    <message>
        <source>{file}: {why}</source>
        <translation>{file}：{why}</translation>
    </message>
    <message>
        <source>The plan&apos;s layers do not fit together at the shapes asked ({asked}): the file computed constants at its own input shapes (a position table, a mask; an export without dynamic axes), first problem: {problem}. Planned at the file&apos;s shapes instead ({shapes}). Export with dynamic shapes (dynamic_shapes, or dynamic_axes with dynamo=False) to plan other sizes.</source>
        <translation>在所要求的形状（{asked}）下，计划的各层无法衔接：文件按其自身的输入形状计算了常量（位置表、掩码；导出时未使用动态轴），第一个问题：{problem}。已改为按文件的形状（{shapes}）规划。若要规划其他尺寸，请以动态形状导出（dynamic_shapes，或 dynamo=False 时用 dynamic_axes）。</translation>
    </message>
    <message>
        <source>{n} GELU(s) written out with Tanh are planned operation by operation, as PyTorch runs a GELU written in Python (GPT-2&apos;s gelu_new keeps each step for backward). If training runs one GELU there instead (F.gelu(approximate=&apos;tanh&apos;), or a custom autograd function whose inference form this is, as BLOOM&apos;s), the plan is {mib} MiB too high at batch {batch} in fp32 ({pct} % of its saved activations): the file cannot tell which.</source>
        <translation>{n} 个用 Tanh 写出的 GELU 按逐个运算规划，与 PyTorch 运行 Python 写成的 GELU 时一致（GPT-2 的 gelu_new 为反向传播保留每一步）。如果训练时那里运行的是一个 GELU（F.gelu(approximate=&apos;tanh&apos;)，或推理形式即为此式的自定义 autograd 函数，如 BLOOM 的），则在批量 {batch}、fp32 下计划高出 {mib} MiB（占其保存激活的 {pct} %）：文件无法区分是哪一种。</translation>
    </message>
    <message>
        <source>{n} GELU(s) written out with Erf, not as the exporters write torch&apos;s GELU (one Gelu operator from opset 20; before it x * (erf(x / sqrt 2) + 1) * 0.5), are planned operation by operation, as PyTorch runs a GELU written in Python (ESM&apos;s x * 0.5 * (1 + erf(x / sqrt 2)) keeps x / sqrt 2, x * 0.5 and 1 + erf for backward). If training runs one GELU there instead, the plan is {mib} MiB too high at batch {batch} in fp32 ({pct} % of its saved activations).</source>
        <translation>{n} 个用 Erf 展开写出的 GELU 与导出器写出 torch GELU 的形式不同（自 opset 20 起为一个 Gelu 算子；之前为 x * (erf(x / sqrt 2) + 1) * 0.5），因此按逐个运算规划，与 PyTorch 运行用 Python 写的 GELU 一致（ESM 的 x * 0.5 * (1 + erf(x / sqrt 2)) 为反向传播保留 x / sqrt 2、x * 0.5 和 1 + erf）。如果训练时那里运行的是一个 GELU，则在批量 {batch}、fp32 下规划高出 {mib} MiB（占其保存激活的 {pct} %）。</translation>
    </message>
    <message>
        <source>{n} activation(s) (ELU, SELU, CELU, leaky ReLU) are planned keeping their input for backward, as PyTorch&apos;s modules do by default (inplace=False). Run in place (inplace=True, as MONAI&apos;s VNet and BasicUNet and DCGAN-style networks run them) they keep their output in their input&apos;s storage instead, and activation memory is {mib} MiB lower than planned at batch {batch} ({pct} % of the plan&apos;s saved activations). The file does not record which.</source>
        <translation>有 {n} 个激活层（ELU、SELU、CELU、Leaky ReLU）按 PyTorch 模块的默认方式（inplace=False）规划为反向传播保存其输入。若以原地方式运行（inplace=True，如 MONAI 的 VNet 和 BasicUNet 以及 DCGAN 类网络），它们改为在输入的存储中保存输出，此时在批大小 {batch} 下激活内存比规划低 {mib} MiB（占计划保存激活的 {pct} %）。文件中没有记录是哪一种。</translation>
    </message>
    <message>
        <source>{n} max or min reduction(s) over one axis could be amax / amin or torch.max(x, dim): dynamo=False writes both as the same ReduceMax (the default exporter&apos;s file says which). The plan takes amax, which keeps its input (the whole storage of a view, such as a q sliced from a packed projection) and its result for backward, the larger here; if the network uses torch.max(x, dim), which keeps int64 indices of its result instead, activation memory is {mib} MiB lower than planned at batch {batch}.</source>
        <translation>{n} 个沿单轴的 max 或 min 归约可能是 amax / amin，也可能是 torch.max(x, dim)：dynamo=False 把两者写成同样的 ReduceMax（默认导出器的文件会注明是哪一个）。规划按 amax 计算：它为反向传播保留输入（若输入是视图，则保留整个存储，例如从打包投影切出的 q）和结果，此处两者中较大；若网络使用 torch.max(x, dim)（改为保留结果的 int64 索引），在批大小 {batch} 下激活内存比规划低 {mib} MiB。</translation>
    </message>
    <message>
        <source>{n} max or min reduction(s) over one axis could be amax / amin or torch.max(x, dim): dynamo=False writes both as the same ReduceMax (the default exporter&apos;s file says which). The plan takes torch.max(x, dim), which keeps int64 indices of its result for backward, the larger here; if the network uses amax, which keeps its input and its result instead, activation memory is {mib} MiB lower than planned at batch {batch}.</source>
        <translation>{n} 个沿单轴的 max 或 min 归约可能是 amax / amin，也可能是 torch.max(x, dim)：dynamo=False 把两者写成同样的 ReduceMax（默认导出器的文件会注明是哪一个）。规划按 torch.max(x, dim) 计算：它为反向传播保留结果的 int64 索引，此处两者中较大；若网络使用 amax（改为保留输入和结果），在批大小 {batch} 下激活内存比规划低 {mib} MiB。</translation>
    </message>
    <message>
        <source>{n} layer norm(s) are written out in the file as operators, as Python code writes them (both exporters write torch.nn.LayerNorm as one LayerNormalization from opset 17): planned as PyTorch keeps them step by step, x - mean twice (computed twice, as DeBERTa&apos;s and ConvNeXt&apos;s LayerNorm write it; the exporter merged the two), the std and the normalised tensor. Where the code computes x - mean once, activation memory is {mib} MiB lower than planned at batch {batch}.</source>
        <translation>文件中有 {n} 个层归一化以多个算子写出，即 Python 代码的写法（从 opset 17 起两种导出器都把 torch.nn.LayerNorm 写成一个 LayerNormalization）：按 PyTorch 逐步执行时保留的内容规划，即两份 x - mean（如 DeBERTa 和 ConvNeXt 的 LayerNorm 那样计算两次；导出器把两者合并了）、标准差和归一化后的张量。若代码只计算一次 x - mean，在批大小 {batch} 下激活内存比规划低 {mib} MiB。</translation>
    </message>
    <message>
        <source>A tensor the network gathers from a learned table by a constant index (relative-position buckets or biases, as WavLM&apos;s T×T or TinyViT&apos;s attention biases) reaches activations: planned, but autograd also keeps the int64 index once for the table&apos;s gradient, which the plan leaves out: {mib} MiB more than planned, at any batch.</source>
        <translation>网络按常量索引从一个可学习的表中取出的张量（相对位置分桶或偏置，如 WavLM 的 T×T 或 TinyViT 的注意力偏置）作用于激活：已计入规划，但 autograd 还会为该表的梯度保留一份 int64 索引，规划未包含：比规划多 {mib} MiB，与批大小无关。</translation>
    </message>
    <message>
        <source>No dropout in the file: if the network uses dropout in training, this is an inference export and the plan leaves out what dropout keeps (measured 2-31 % of the saved bytes on BERT, GPT-2 and nn.TransformerEncoder), and parameters the network uses only in training are not in the file (wav2vec2&apos;s masked_spec_embed for SpecAugment). Export with model.train() for training figures.</source>
        <translation>文件中没有 dropout：如果该网络训练时使用 dropout，这就是推理导出，方案不含 dropout 保留的内容（在 BERT、GPT-2 和 nn.TransformerEncoder 上实测为保留字节的 2–31 %），而且网络只在训练时使用的参数也不在文件中（例如 wav2vec2 用于 SpecAugment 的 masked_spec_embed）。要得到训练时的数字，请用 model.train() 导出。</translation>
    </message>
    <message>
        <source>{n} attention call(s) get a boolean mask that the file builds from the sequence length alone (a causal mask, or one that masks nothing, as BERT-style encoders build from an all-ones attention mask). Recent transformers models skip it in training and run the kernel without a mask (causal where it is), which keeps none: planned so. A model that passes the mask (Falcon) keeps a float copy of it per call: {mib} MiB more at batch {batch}.</source>
        <translation>{n} 个注意力调用得到一个布尔掩码，文件仅由序列长度构造它（因果掩码，或者什么也不遮挡的掩码，例如 BERT 类编码器由全 1 的 attention mask 构造的掩码）。较新的 transformers 模型在训练时跳过它，改用不带掩码的内核（需要时为因果内核），不保留掩码：按此规划。若模型传入该掩码（Falcon），每次调用会保留它的一个浮点副本：批大小 {batch} 时多 {mib} MiB。</translation>
    </message>
    <message>
        <source>{n} attention call(s) get a causal mask from a model that always passes it (Falcon, as the exporter&apos;s record of its classes says): scaled_dot_product_attention keeps a float copy of it per call: planned.</source>
        <translation>{n} 个注意力调用得到来自一个总是传入因果掩码的模型（Falcon，导出器记录的类名如此显示）的因果掩码：scaled_dot_product_attention 每次调用都会保留它的一份浮点副本：已计入规划。</translation>
    </message>
    <message>
        <source>{n} attention call(s) get a boolean mask that the file builds from the sequence length alone (a causal mask). Recent transformers models skip it in training and run the causal kernel, which keeps no mask: planned so. A model that passes the mask (Falcon) keeps a float copy of it per call: {mib} MiB more at batch {batch}.</source>
        <translation type="vanished">{n} 个注意力调用得到一个布尔掩码，文件仅由序列长度构造它（因果掩码）。较新的 transformers 模型在训练时跳过它，改用因果内核，不保留掩码：按此规划。若模型传入该掩码（Falcon），每次调用会保留它的一个浮点副本：批大小 {batch} 时多 {mib} MiB。</translation>
    </message>
    <message>
        <source>{n} attention call(s) get a band of positions as their mask (local or sliding-window attention, built from the sequence length): training passes it, and scaled_dot_product_attention keeps a float copy of it per call: planned.</source>
        <translation>{n} 个注意力调用以一段位置带作为掩码（局部或滑动窗口注意力，由序列长度构造）：训练时会传入该掩码，scaled_dot_product_attention 每次调用都会保留它的一份浮点副本：已计入规划。</translation>
    </message>
    <message>
        <source>{n} GELU(s) written out with Tanh belong to BLOOM&apos;s GELU module, which trains with a custom autograd function keeping only its input (the file shows its inference form): each is planned as one GELU.</source>
        <translation>{n} 个以 Tanh 展开写出的 GELU 属于 BLOOM 的 GELU 模块：该模块训练时使用只保留其输入的自定义 autograd 函数（文件中是它的推理形式），因此每个都按一个 GELU 规划。</translation>
    </message>
    <message>
        <source>A tensor the network gathers from a learned table by a constant index (relative-position buckets, as WavLM&apos;s T×T) scales activations: planned, but autograd also keeps the int64 index once for the table&apos;s gradient, which the plan leaves out: {mib} MiB more than planned, at any batch.</source>
        <translation type="vanished">网络用常量索引从可学习的表中取出一个张量（相对位置桶，如 WavLM 的 T×T）来缩放激活：这一部分已规划，但 autograd 还会为该表的梯度保留一份 int64 索引，规划未包含：比规划多 {mib} MiB，与批大小无关。</translation>
    </message>
    <message>
        <source>Activations gathered by a constant index (torch.gather over relative positions, as DeBERTa&apos;s content-to-position scores) are planned, but autograd also keeps each int64 index once for backward, which the plan leaves out: {mib} MiB more than planned, at any batch.</source>
        <translation>已规划按常量索引收集的激活（对相对位置的 torch.gather，如 DeBERTa 的内容到位置分数），但 autograd 还会为反向传播保留每个 int64 索引一次，规划未包含这部分：比规划多 {mib} MiB，与批量无关。</translation>
    </message>
    <message>
        <source>{n} Einsum product(s) multiply by a weight that torch.einsum must copy to reorder it (its contracted indices are taken in alphabetical order, as in &apos;ibnd,hnd-&gt;ibh&apos;); autograd keeps each copy once for backward, which the plan leaves out: {mib} MiB more than planned in fp32, at any batch.</source>
        <translation>{n} 个 Einsum 乘积乘以一个 torch.einsum 必须复制以重排的权重（其缩并下标按字母顺序处理，如 &apos;ibnd,hnd-&gt;ibh&apos;）；autograd 为反向传播将每个副本保留一次，计划未计入：fp32 下比计划多 {mib} MiB，与批大小无关。</translation>
    </message>
    <message>
        <source>Activations gathered by a constant index (torch.gather over relative positions, as DeBERTa&apos;s content-to-position scores) are planned, but autograd also keeps each int64 index once for backward, which the plan leaves out: up to {mib} MiB more than planned, at any batch (the exporter folded the indices into constants, perhaps expanded over the heads, where autograd keeps the tensor before the expansion).</source>
        <translation>已规划按常量索引收集的激活（对相对位置的 torch.gather，如 DeBERTa 的内容到位置分数），但 autograd 还会为反向传播保留每个 int64 索引一次，规划未包含这部分：比规划最多多 {mib} MiB，与批量无关（导出器把索引折叠成了常量，可能已按注意力头展开，而 autograd 保留的是展开前的张量）。</translation>
    </message>
    <message>
        <source>the graph is nested too deeply to read</source>
        <translation>计算图嵌套过深，无法读取</translation>
    </message>
    <message>
        <source>the file is too large to read</source>
        <translation>文件过大，无法读取</translation>
    </message>
    <message>
        <source>cannot be read as an ONNX network ({why})</source>
        <translation>无法作为 ONNX 网络读取（{why}）</translation>
    </message>
    <message>
        <source>{n} copies of keys and values that PyTorch makes in training (torch.cat onto an empty key/value cache) were removed from the file by the exporter&apos;s optimiser, as its own record of the traced operations shows; the plan puts them back (attention keeps the copies).</source>
        <translation>PyTorch 在训练中对键和值所做的 {n} 个副本（torch.cat 到空的键/值缓存上）被导出器的优化器从文件中删除了（导出器自己记录的跟踪操作表明了这一点）；规划把它们加了回来（注意力保存这些副本）。</translation>
    </message>
    <message>
        <source>{n} attention block(s) read a q made afresh in head-major order (torch.cat of rotated and passed-through halves: partial rotary positions). Flash attention writes its output in that order, so the transpose back to tokens is a copy, which the next layer keeps: planned (the memory-efficient kernel writes token order and makes no copy).</source>
        <translation>{n} 个注意力块读取的 q 是按头优先顺序新建的（旋转部分与直通部分经 torch.cat 拼接：部分旋转位置编码）。Flash 注意力按该顺序写出输出，因此转回按词元顺序时会复制一份，由下一层保留：已计入规划（内存高效内核按词元顺序写出，不产生复制）。</translation>
    </message>
    <message>
        <source>{n} grouped-query attention block(s) repeat keys and values to every head in the file (repeat_kv, as traced for the export); with no mask input, training runs scaled_dot_product_attention on the key/value groups (enable_gqa, what transformers does without a padding mask) and keeps them once, as planned. With a padding mask the repeated copies are kept too.</source>
        <translation>文件中有 {n} 个分组查询注意力块把键和值重复到每个头（repeat_kv，导出时跟踪所得）；没有掩码输入时，训练对键/值分组运行 scaled_dot_product_attention（enable_gqa，transformers 在没有填充掩码时的做法），只保存一份，规划即按此计算。有填充掩码时，重复的副本也会被保存。</translation>
    </message>
    <message>
        <source>No dropout in the file: if the network uses dropout in training, this is an inference export and the plan leaves out what dropout keeps (measured 2-31 % of the saved bytes on BERT, GPT-2 and nn.TransformerEncoder). Export with model.train() for training figures.</source>
        <translation type="vanished">文件中没有 dropout：如果该网络训练时使用 dropout，这就是推理导出，方案不含 dropout 保留的内容（在 BERT、GPT-2 和 nn.TransformerEncoder 上实测为保留字节的 2–31 %）。要得到训练时的数字，请用 model.train() 导出。</translation>
    </message>
    <message>
        <source>{n} max or min reduction(s) over one axis were planned as torch.max(x, dim), which keeps int64 indices of its result for backward. The file cannot tell it from amax / amin (dynamo=False writes both as the same ReduceMax), which keeps its input and its result instead: if the network uses amax, activation memory is {mib} MiB higher than planned at batch {batch}. The default exporter&apos;s file says which.</source>
        <translation type="vanished">{n} 个沿单一维度的 max 或 min 归约按 torch.max(x, dim) 规划,反向传播时保存其结果的 int64 索引。该文件无法将其与 amax / amin 区分(dynamo=False 将两者都写成同一个 ReduceMax),后者改为保存其输入和结果:如果网络使用 amax,则在批大小 {batch} 下激活内存比规划高 {mib} MiB。默认导出器生成的文件会注明是哪一种。</translation>
    </message>
    <message>
        <source>Made by PyTorch&apos;s default exporter from a network with attention: such files leave out some copies a transformer makes in training (measured: GPT-2&apos;s key/value cache, 6.4 % of what autograd keeps, is missing; Llama&apos;s repeated keys and values add 4.5 %). For exact figures export with dynamo=False in training mode.</source>
        <translation type="vanished">由 PyTorch 默认导出器从含注意力的网络导出：这类文件缺少 Transformer 训练时会产生的一些副本（实测：GPT-2 的键/值缓存缺失，相当于 autograd 保留量的 6.4 %；Llama 重复的键和值多算 4.5 %）。要得到精确数字，请在训练模式下用 dynamo=False 导出。</translation>
    </message>
    <message>
        <source>No dropout in the file: if the network uses dropout in training, this is an inference export and the plan leaves out what dropout keeps (measured 2-22 % of the saved bytes on BERT and GPT-2). Export with model.train() for training figures.</source>
        <translation type="vanished">文件中没有 dropout：如果该网络训练时使用 dropout，这就是推理导出，方案不含 dropout 保留的内容（在 BERT 和 GPT-2 上实测为保留字节的 2–22 %）。要得到训练时的数字，请用 model.train() 导出。</translation>
    </message>
    <message>
        <source>{n} operation(s) the exporter&apos;s optimiser merged with an identical one (equal parameters, as in an untrained network: two norms of one input) are planned again, as training runs each, as its record of the traced operations shows.</source>
        <translation>导出器的优化器把 {n} 个运算与相同的运算合并了（参数相等，如未训练的网络：同一输入的两个归一化）；按其跟踪运算记录，训练时每个都会运行，因此已在规划中重新计入。</translation>
    </message>
    <message>
        <source>{n} per-channel factor(s) the exporter folded out of parameters (a layer scale, a logit scale) are counted as the parameters they came from, and the products with them keep their input for those parameters&apos; gradients.</source>
        <translation>导出器从参数折叠出的 {n} 个逐通道因子（层缩放、logit 缩放）按其来源参数计入，与它们相乘的运算为这些参数的梯度保留其输入。</translation>
    </message>
    <message>
        <source>The exporter removed {n} bias vector(s) that were all zeros (an untrained network&apos;s); the plan counts them, as training has them.</source>
        <translation>导出器移除了 {n} 个全零的偏置向量（未训练网络的）；计划会计入它们，因为训练时存在。</translation>
    </message>
    <message>
        <source>node &apos;{node}&apos; reads &apos;{tensor}&apos;, which no node, input or initializer provides</source>
        <translation>节点“{node}”读取“{tensor}”，但没有任何节点、输入或初始化器提供它</translation>
    </message>
    <message>
        <source>the graph has a cycle (nodes {nodes} depend on each other)</source>
        <translation>计算图有环（节点 {nodes} 互相依赖）</translation>
    </message>
    <message>
        <source>batch size {batch} must be a whole number from 1 to {most}</source>
        <translation>批大小 {batch} 必须是 1 到 {most} 之间的整数</translation>
    </message>
    <message>
        <source>The file fixes the input shape in its reshapes, so it cannot be planned at {asked}: planned at {shape} as exported. Export it with a dynamic shape (dynamic_shapes, or dynamic_axes with dynamo=False) to plan other sizes.</source>
        <translation type="vanished">该文件在其 reshape 中固定了输入形状，因此无法按 {asked} 计划：已按导出时的 {shape} 计划。请以动态形状导出（dynamic_shapes，或 dynamo=False 时的 dynamic_axes）以计划其他尺寸。</translation>
    </message>
    <message>
        <source>initializer &apos;{name}&apos; has absurd dimensions {dims}</source>
        <translation>初始化器“{name}”的维度不合理：{dims}</translation>
    </message>
    <message>
        <source>the graph has no data input (every input is a weight)</source>
        <translation>计算图没有数据输入（所有输入都是权重）</translation>
    </message>
    <message>
        <source>the planner handles networks with one input; this graph has {n}: {names}</source>
        <translation type="vanished">规划器只处理单输入网络；此图有 {n} 个：{names}</translation>
    </message>
    <message>
        <source>The graph has {n} inputs; the plan follows &apos;{primary}&apos; and takes {others} as given (masks, positions, token types): what is computed from them alone keeps nothing per sample.</source>
        <translation type="vanished">该图有 {n} 个输入；计划沿“{primary}”展开，并将 {others} 视为给定（掩码、位置、token 类型）：仅由它们计算出的内容不按样本保留任何张量。</translation>
    </message>
    <message>
        <source>The file fixes the shape of input &apos;{name}&apos; in its reshapes or its constants, so it cannot be planned at {asked}: planned at {shape} as exported. Export it with a dynamic shape (dynamic_shapes, or dynamic_axes with dynamo=False) to plan other sizes.</source>
        <translation>文件在其 reshape 或常量中固定了输入 &apos;{name}&apos; 的形状，因此无法按 {asked} 规划：已按导出时的 {shape} 规划。若要规划其他尺寸，请以动态形状导出（dynamic_shapes，或 dynamo=False 时用 dynamic_axes）。</translation>
    </message>
    <message>
        <source>The graph has {n} inputs; the plan follows {followed} and takes {others} as given (masks, positions, token types): what is computed from them alone keeps nothing per sample.</source>
        <translation>该图有 {n} 个输入；计划跟随 {followed}，并将 {others} 视为给定值（掩码、位置、词元类型）：仅由它们计算出的内容不按样本保留任何张量。</translation>
    </message>
    <message>
        <source>The network has {n} inputs that feed learned layers ({names}): the plan follows each, with its own per-sample shape and the same batch, and layers that read several join where the graph joins them (cross-attention).</source>
        <translation>该网络有 {n} 个输入各自馈入可学习的层（{names}）：计划分别跟随每个输入，各用其单样本形状、共用同一批次；读取多个输入的层在图中汇合之处汇合（交叉注意力）。</translation>
    </message>
    <message>
        <source>The file has PEFT LoRA adapters: the plan trains them alone ({trainable} parameters) and freezes the base network as PEFT does ({frozen} parameters in {layers} layers, without gradients or optimizer state; what their backward no longer needs is not kept). An ONNX file does not record which weights train: if the base trains too, export the network without the adapters.</source>
        <translation>该文件含有 PEFT LoRA 适配器：规划只训练适配器（{trainable} 个参数），并像 PEFT 那样冻结基础网络（{layers} 个层中的 {frozen} 个参数，没有梯度和优化器状态；其反向传播不再需要的张量也不保留）。ONNX 文件不记录哪些权重参与训练：如果基础网络也要训练，请导出不含适配器的网络。</translation>
    </message>
    <message>
        <source>--input names &apos;{name}&apos;, which is not an input of the graph (its inputs: {names})</source>
        <translation>--input 指定了 &apos;{name}&apos;，但它不是该图的输入（图的输入：{names}）</translation>
    </message>
    <message>
        <source>input &apos;{name}&apos; has no shape (missing shapes: re-export with shapes)</source>
        <translation>输入“{name}”没有形状（缺少形状：请带形状重新导出）</translation>
    </message>
    <message>
        <source>input &apos;{name}&apos; has {n} dimension(s); expected a batch dimension and 1 to 4 more</source>
        <translation>输入“{name}”有 {n} 个维度；应为一个批维度加 1 到 4 个维度</translation>
    </message>
    <message>
        <source>input &apos;{name}&apos; fixes the batch at {batch}, outside 1 to {most}</source>
        <translation>输入“{name}”将批大小固定为 {batch}，超出 1 到 {most} 的范围</translation>
    </message>
    <message>
        <source>--input {asked} has {n} dimension(s); input &apos;{name}&apos; has {m} besides the batch ({shape})</source>
        <translation>--input {asked} 有 {n} 个维度；输入“{name}”除批维度外有 {m} 个（{shape}）</translation>
    </message>
    <message>
        <source>--input {asked} has {n} dimension(s); input &apos;{name}&apos; has {m} besides the batch ({shape}); the file&apos;s other inputs ({others}) take a shape each, named: --input NAME=SHAPE</source>
        <translation>--input {asked} 有 {n} 个维度；输入 &apos;{name}&apos; 除批次外有 {m} 个（{shape}）；文件的其他输入（{others}）各自接受一个形状，需写明名称：--input 名称=形状</translation>
    </message>
    <message>
        <source>The file fixes input &apos;{name}&apos; at {shape}; planning {asked} as asked (shapes re-derived).</source>
        <translation>文件将输入“{name}”固定为 {shape}；按要求计划 {asked}（形状已重新推导）。</translation>
    </message>
    <message>
        <source>The sequence length of input &apos;{name}&apos; is not fixed in the file; planned at {n} tokens (set it with --input, e.g. --input 512).</source>
        <translation>文件未固定输入“{name}”的序列长度；按 {n} 个 token 计划（可用 --input 设置，例如 --input 512）。</translation>
    </message>
    <message>
        <source>input &apos;{name}&apos; has a symbolic dimension besides the batch; the planner needs every dimension but the batch fixed (give it with --input {name}=SHAPE)</source>
        <translation>输入 &apos;{name}&apos; 除批次外还有符号维度；规划器需要除批次外的每个维度都是固定值（请用 --input {name}=形状 给出）</translation>
    </message>
    <message>
        <source>input &apos;{name}&apos; has a symbolic dimension besides the batch; the planner needs every dimension but the batch fixed (give it with --input)</source>
        <translation>输入“{name}”除批维度外还有符号维度；规划器需要除批维度外的所有维度都是固定的（请用 --input 给出）</translation>
    </message>
    <message>
        <source>input &apos;{name}&apos; dimension {k} is {p}: absurd dimensions</source>
        <translation>输入“{name}”的第 {k} 维为 {p}：维度不合理</translation>
    </message>
    <message>
        <source>--input {asked} has {n} dimension(s); input &apos;{name}&apos; has {m} besides the batch</source>
        <translation>--input {asked} 有 {n} 个维度；输入 &apos;{name}&apos; 除批次外有 {m} 个</translation>
    </message>
    <message>
        <source>ONNX shape inference failed: {why}</source>
        <translation>ONNX 形状推断失败：{why}</translation>
    </message>
    <message>
        <source>The graph selects elements by their values ({ops}): the shapes after them are known only when the network runs and were assumed, so the plan there is a guess (a detector&apos;s post-processing: box decoding, non-maximum suppression). Export the network up to its raw outputs (backbone and heads, without the post-processing).</source>
        <translation>图按元素的取值挑选元素（{ops}）：其后的形状只有在网络运行时才知道，这里是假定的，因此该处的规划只是猜测（检测器的后处理：框解码、非极大值抑制）。请将网络导出到其原始输出为止（主干和检测头，不含后处理）。</translation>
    </message>
    <message>
        <source>ONNX shape inference leaves too many tensor shapes unknown: the graph builds lists of tensors ({op} node &apos;{node}&apos;: torch.tensor_split, or a Python list the legacy exporter traced), whose shapes inference does not follow. Export with the default exporter (torch.onnx.export(model, (x,), &apos;m.onnx&apos;)), which writes such splits as slices.</source>
        <translation>ONNX 形状推断留下太多未知的张量形状：图构建了张量列表（{op} 节点“{node}”：torch.tensor_split，或旧版导出器追踪到的 Python 列表），形状推断无法跟踪其形状。请改用默认导出器导出（torch.onnx.export(model, (x,), &apos;m.onnx&apos;)），它将这类拆分写成切片。</translation>
    </message>
    <message>
        <source>The graph has control flow that depends on the data ({op} node &apos;{node}&apos;): which branch runs, or how often, is known only when the network runs (a detector&apos;s post-processing: box decoding, non-maximum suppression). The planner plans a graph without it: export the network up to its raw outputs (backbone and heads, without the post-processing).</source>
        <translation>图中有取决于数据的控制流（{op} 节点 &apos;{node}&apos;）：走哪个分支、执行几次，只有在网络运行时才知道（检测器的后处理：框解码、非极大值抑制）。规划器只规划不含这部分的图：请将网络导出到其原始输出为止（主干和检测头，不含后处理）。</translation>
    </message>
    <message>
        <source>Shape inference does not know &apos;{op}&apos; (node &apos;{node}&apos;): assumed to keep its input&apos;s shape.</source>
        <translation>形状推断不认识“{op}”（节点“{node}”）：假定其保持输入的形状。</translation>
    </message>
    <message>
        <source>ONNX shape inference leaves too many tensor shapes unknown: the graph selects elements by their values ({ops}), so the shapes after them are known only when the network runs (a detector&apos;s post-processing: box decoding, non-maximum suppression). The planner plans a graph without it: export the network up to its raw outputs (backbone and heads, without the post-processing).</source>
        <translation>ONNX 形状推断留下太多未知的张量形状：图按元素的取值挑选元素（{ops}），因此其后的形状只有在网络运行时才知道（检测器的后处理：框解码、非极大值抑制）。规划器只规划不含这部分的图：请将网络导出到其原始输出为止（主干和检测头，不含后处理）。</translation>
    </message>
    <message>
        <source>ONNX shape inference leaves too many tensor shapes unknown (missing shapes), the last at {op} node &apos;{node}&apos;</source>
        <translation>ONNX 形状推断后仍有过多张量形状未知（缺少形状），最后一处在 {op} 节点“{node}”</translation>
    </message>
    <message>
        <source>ONNX shape inference leaves too many tensor shapes unknown (missing shapes)</source>
        <translation>ONNX 形状推断后仍有过多张量形状未知（缺少形状）</translation>
    </message>
    <message>
        <source>tensor &apos;{name}&apos; has no shape (missing shapes)</source>
        <translation>张量“{name}”没有形状（缺少形状）</translation>
    </message>
    <message>
        <source>The file fixes input &apos;{name}&apos; at {shape} and does not say which axis is the batch; its attention mixes the elements along axis {first}, so that axis is not the batch: planned with the batch on axis {axis} (a sequence-first network, as torch.nn.Transformer by default).</source>
        <translation>文件将输入“{name}”固定为 {shape}，未说明哪一轴是批次；其注意力沿第 {first} 轴混合元素，因此该轴不是批次：按批次在第 {axis} 轴规划（序列在前的网络，如 torch.nn.Transformer 的默认设置）。</translation>
    </message>
    <message>
        <source>tensor &apos;{name}&apos; has a dimension of {v}: absurd dimensions</source>
        <translation>张量“{name}”有一个大小为 {v} 的维度：维度不合理</translation>
    </message>
    <message>
        <source>input &apos;{name}&apos; needs 1 to 4 dimensions besides the batch, got {shape}</source>
        <translation>输入“{name}”除批维度外需要 1 到 4 个维度，实际为 {shape}</translation>
    </message>
    <message>
        <source>The graph contains a detector&apos;s post-processing ({op} node &apos;{node}&apos;): how many boxes it keeps, and so every shape after it, is known only when the network runs. The planner plans a graph without it: export the network up to its raw outputs (backbone and heads, without the post-processing).</source>
        <translation>图中包含检测器的后处理（{op} 节点 &apos;{node}&apos;）：它保留多少个框，以及其后的每个形状，只有在网络运行时才知道。规划器只规划不含这部分的图：请将网络导出到其原始输出为止（主干和检测头，不含后处理）。</translation>
    </message>
    <message>
        <source>{op} &apos;{node}&apos; could not be mapped ({why}); counted as keeping its input.</source>
        <translation>{op}“{node}”无法映射（{why}）；按保留其输入计算。</translation>
    </message>
    <message>
        <source>The file has PEFT LoRA adapters ({n} parameters): the base network is planned frozen, as PEFT trains it (no gradients or optimizer state for {layers} layers, and what their backward no longer needs is not kept). Export the base model alone to plan full fine-tuning.</source>
        <translation type="vanished">该文件含有 PEFT LoRA 适配器（{n} 个参数）：按 PEFT 的训练方式，基础网络按冻结规划（{layers} 个层没有梯度和优化器状态，其反向传播不再需要的张量也不保留）。若要规划全量微调，请只导出基础模型。</translation>
    </message>
    <message>
        <source>no operator of the graph reads the input: nothing to plan</source>
        <translation>计算图中没有算子读取输入：没有可计划的内容</translation>
    </message>
    <message>
        <source>The plan&apos;s shapes differ from the file&apos;s at {n} place(s), first: {where}. Layers there may need editing.</source>
        <translation>计划的形状与文件中的形状有 {n} 处不同，首先是：{where}。这些位置的层可能需要编辑。</translation>
    </message>
    <message>
        <source>The imported plan has problems to fix: {problems}.</source>
        <translation>导入的计划有需要修正的问题：{problems}。</translation>
    </message>
    <message>
        <source>Operators the planner does not understand, counted as keeping their input for backward (a guess; shapes kept as in the file): {ops}.</source>
        <translation>规划器不理解的算子，按为反向传播保留其输入计算（推测；形状按文件保留）：{ops}。</translation>
    </message>
    <message>
        <source>{n} of {total} nodes are not in the plan (their input could not be planned), first: {first}. The estimate covers only part of the network.</source>
        <translation>{total} 个节点中有 {n} 个不在计划中（其输入无法计划），首先是：{first}。估算只覆盖网络的一部分。</translation>
    </message>
    <message>
        <source>{n} constant(s) of the file ({values} values: {names}) were computed when the file was exported (an expanded class token, a gathered position-bias table, a mask, rotary sines); the plan takes them as constants, so learned parameters they came from (if any) are not counted, nor what computing them keeps for those parameters&apos; gradients (Swin-V2&apos;s position-bias MLP). Export with do_constant_folding=False (dynamo=False) to count them.</source>
        <translation>文件中的 {n} 个常量（{values} 个值：{names}）是导出时计算出来的（展开的类别 token、按索引取出的位置偏置表、掩码、旋转位置编码的正余弦）；计划将其视为常量，因此它们所来自的可学习参数（如有）不被计入，计算它们时为这些参数的梯度所保留的张量也不被计入（例如 Swin-V2 的位置偏置 MLP）。请用 do_constant_folding=False（dynamo=False）导出以计入它们。</translation>
    </message>
    <message>
        <source>{n} constant(s) of the file ({values} values: {names}) were computed when the file was exported (an expanded class token, a gathered position-bias table, a mask, rotary sines); the plan takes them as constants, so learned parameters they came from (if any) are not counted, nor what products with them keep for those parameters&apos; gradients (Swin-V2&apos;s scores times its logit scale). Export with do_constant_folding=False (dynamo=False) to count them.</source>
        <translation type="vanished">文件中的 {n} 个常量（{values} 个值：{names}）是导出时计算出来的（展开的类别 token、按索引取出的位置偏置表、掩码、旋转位置编码的正余弦）；计划将其视为常量，因此它们所来自的可学习参数（如有）不被计入，与它们相乘的运算为这些参数的梯度所保留的张量也不被计入（例如 Swin-V2 的注意力分数乘以其 logit 缩放）。请用 do_constant_folding=False（dynamo=False）导出以计入它们。</translation>
    </message>
    <message>
        <source>Learned layers compute a tensor from constants alone (a position-bias MLP over a table of relative coordinates, as in Swin-V2): their parameters are counted, but what they keep for backward is not planned: {values} values ({mib} MiB in fp32), the same at every batch.</source>
        <translation>有可学习层仅由常量计算出一个张量（例如 Swin-V2 中作用于相对坐标表的位置偏置 MLP）：其参数已计入，但它们为反向传播保留的张量未纳入计划：{values} 个值（fp32 下 {mib} MiB），与批大小无关。</translation>
    </message>
    <message>
        <source>{n} weight tensor(s) of the file ({values} values) belong to no layer of the plan: {names}.</source>
        <translation>文件中的 {n} 个权重张量（{values} 个值）不属于计划中的任何层：{names}。</translation>
    </message>
    <message>
        <source>{n} position table(s) of the file ({names}: {values} values) hold sine and cosine waves: taken as fixed tables, as PyTorch code makes them (a buffer, or requires_grad=False as in RoFormer&apos;s and Marian&apos;s sinusoidal embeddings): not counted as parameters, and nothing is kept for their gradients.</source>
        <translation>文件中有 {n} 个位置表（{names}：{values} 个值）存放的是正弦和余弦波：按 PyTorch 代码的做法（缓冲区，或像 RoFormer 和 Marian 的正弦位置嵌入那样设为 requires_grad=False）视为固定表：不计为参数，也不为其梯度保存任何张量。</translation>
    </message>
    <message>
        <source>{n} weight(s) are built by concatenating learned parameters with constants (Swin-V2&apos;s bias: q_bias, a zero k_bias buffer, v_bias): the plan counts the constant part as parameters, {values} more than the network has.</source>
        <translation>{n} 个权重由可学习参数与常量拼接而成（Swin-V2 的偏置：q_bias、全零的 k_bias 缓冲区、v_bias）：规划把常量部分也算作参数，比网络实际多 {values} 个。</translation>
    </message>
    <message>
        <source>The plan counts {plan} parameters but its layers read {read} weight values of the file: {diff} more.</source>
        <translation>计划计入 {plan} 个参数，但其各层读取文件中的 {read} 个权重值：多 {diff} 个。</translation>
    </message>
    <message>
        <source>The plan counts {plan} parameters but its layers read {read} weight values of the file: {diff} fewer.</source>
        <translation>计划计入 {plan} 个参数，但其各层读取文件中的 {read} 个权重值：少 {diff} 个。</translation>
    </message>
    <message>
        <source>{n} weight tensor(s) of the file ({values} values, {pct} % of the {read} the plan reads) are read by no node of the plan: {names}. If they are the network&apos;s parameters (of nodes left out, or of a module the traced call never ran), the plan lacks them.</source>
        <translation>文件中有 {n} 个权重张量（{values} 个值，相当于规划所读取的 {read} 个值的 {pct} %）没有被规划中的任何节点读取：{names}。如果它们是网络的参数（属于被略去的节点，或属于追踪调用从未运行的模块），规划中就缺少它们。</translation>
    </message>
    <message>
        <source>{n} learned one-element parameter(s) of the file ({names}) are read by the plan&apos;s layers as constants: the plan does not count them, nor what their gradients keep for backward.</source>
        <translation>文件中有 {n} 个可学习的单元素参数（{names}）被计划的层当作常量读取：计划没有计入它们，也没有计入它们的梯度在反向传播中需要保存的张量。</translation>
    </message>
    <message>
        <source>{n} convolution or linear weight(s) of the file ({names}) are constants the exporter computed from parameters (a standardised weight times its gain, as timm&apos;s ScaledStdConv; a weight norm): the plan counts each as one weight of its shape. The parameters they came from beyond that (a gain per output channel: up to {values}) are not in the file, nor what the standardisation keeps for backward. Export in training mode (model.train(), dynamo=False) to count them.</source>
        <translation>文件中的 {n} 个卷积或线性层权重（{names}）是导出器由参数计算出的常量（标准化权重乘以其增益，如 timm 的 ScaledStdConv；权重归一化）：计划把每个都按其形状计为一个权重。它们所来自的其余参数（每个输出通道一个增益：至多 {values} 个）不在文件中，标准化为反向传播保留的内容也不在其中。请以训练模式导出（model.train()，dynamo=False）以计入它们。</translation>
    </message>
    <message>
        <source>Learned layers compute a tensor from constants alone (a position-bias MLP over a table of relative coordinates, as in Swin-V2): their parameters are counted, but what they keep for backward is not planned: {values} values and {masks} one-byte dropout mask elements ({mib} MiB in fp32), the same at every batch.</source>
        <translation>可学习层仅由常量计算出一个张量（基于相对坐标表的位置偏置 MLP，如 Swin-V2）：其参数已计入，但它们为反向传播保留的内容未计入规划：{values} 个值和 {masks} 个单字节 dropout 掩码元素（fp32 下 {mib} MiB），与批大小无关。</translation>
    </message>
    <message>
        <source>{n} weight tensor(s) of the file are each read by layers of different modules and are equal tensors the exporter stored once (a constant fill, such as an untrained norm&apos;s 1s and 0s, or a copied module&apos;s values where the file&apos;s signature lists each copy&apos;s own parameter): counted once per layer, {values} parameters more than the file stores.</source>
        <translation>文件中有 {n} 个权重张量各自被不同模块的层读取，它们是导出器只存储一次的相等张量（常数填充，例如未训练归一化层的全 1 与全 0；或复制模块的取值，文件签名列出了每个副本自己的参数）：按每层各计一次，比文件存储的多 {values} 个参数。</translation>
    </message>
    <message>
        <source>{n} weight tensor(s) of the file are each read by layers of different modules, and the file cannot tell equal tensors the exporter stored once (copied modules) from one weight the network ties: counted once per layer; if they are tied, the plan counts {values} parameters too many.</source>
        <translation>文件中有 {n} 个权重张量各自被不同模块的层读取，而文件无法区分这是导出器只存储一次的相等张量（复制的模块）还是网络绑定共享的同一个权重：按每层各计一次；如果它们是绑定共享的，计划多计了 {values} 个参数。</translation>
    </message>
    <message>
        <source>{n} weight tensor(s) of the file ({values} values) are read by layers of different modules, are no constant fill, and the file&apos;s signature lists no parameter of their own for the later layers: one weight the network ties between modules, counted once for linear layers (norms and biases have no tied form: counted per use, said below).</source>
        <translation>文件中有 {n} 个权重张量（{values} 个值）被不同模块的层读取，它们不是常数填充，且文件签名没有为后面的层列出各自的参数：这是网络在模块之间绑定共享的同一个权重，线性层只计一次（归一化层和偏置没有绑定形式：按每次使用计，见下文）。</translation>
    </message>
    <message>
        <source>{n} parameters are counted once per layer although the file stores them once (the exporter merged identical weight tensors, as it does for untrained ones).</source>
        <translation>有 {n} 个参数按每层各计一次，尽管文件只存储一次（导出器合并了相同的权重张量，未训练的网络常会如此）。</translation>
    </message>
    <message>
        <source>{n} weight values are read by more than one linear layer (one module called several times, or an output layer tied to the token embedding): counted once, with the gradients of every use added into one.</source>
        <translation>{n} 个权重值被多个线性层读取（同一模块被多次调用，或输出层与词元嵌入绑定）：只计一次，各次使用的梯度累加为一份。</translation>
    </message>
    <message>
        <source>{n} parameter values reach several layers through one tensor computed from them once (a relative-position bias every layer adds): counted once.</source>
        <translation>{n} 个参数值经由一个只计算一次的张量到达多个层（每层都加上的相对位置偏置）：只计一次。</translation>
    </message>
    <message>
        <source>An output layer&apos;s weight ({n} values) has the shape of the token embedding&apos;s table, transposed, and the exporter&apos;s constant folding made it a constant of its own, so the file cannot say whether the two are one tied weight (GPT-2&apos;s and BERT&apos;s language-model heads, most Hugging Face language models): the plan counts them apart. If they are tied, it counts {n} parameters too many ({pct} of its parameters). Export with do_constant_folding=False, or with the default exporter, to tell.</source>
        <translation>某个输出层的权重（{n} 个值）与词元嵌入表转置后的形状相同，而导出器的常量折叠把它变成了单独的常量，因此文件无法说明两者是否为同一个绑定权重（GPT-2 和 BERT 的语言模型头，以及大多数 Hugging Face 语言模型都是绑定的）：计划将两者分开计数。若它们是绑定的，计划多计了 {n} 个参数（占其参数的 {pct}）。请用 do_constant_folding=False 或默认导出器导出以便区分。</translation>
    </message>
    <message>
        <source>{n} weight values that the network shares between layers (one module called several times, as CoaT&apos;s convolutional position encodings are) are counted once per use: the plan counts {n} parameters more than the network has ({pct} of them), and their gradients once per use.</source>
        <translation>网络在多个层之间共享的 {n} 个权重值（同一模块被多次调用，如 CoaT 的卷积位置编码）按每次使用计数：计划比网络实际多算 {n} 个参数（占 {pct}），其梯度也按每次使用计数。</translation>
    </message>
    <message>
        <source>{n} values of vectors (biases, norm scales) that the network shares between layers (one module called several times) are counted once per use: the plan counts {n} parameters more than the network has ({pct} of them).</source>
        <translation>网络在层之间共享的向量（偏置、归一化缩放）中有 {n} 个值按每次使用各计一次（同一模块被多次调用）：计划比网络实际多计 {n} 个参数（占 {pct}）。</translation>
    </message>
    <message>
        <source>{n} norm(s) of the network ({first}) have no node in the file: the exporter&apos;s optimiser merged each with an identical norm of the same input (equal parameters, as in an untrained network). They are planned again, as training runs each: {values} parameters and what they keep.</source>
        <translation>网络中有 {n} 个归一化层（{first}）在文件中没有对应节点：导出器的优化器把每个都与同一输入上参数相同的归一化层合并了（参数相等，未训练的网络即如此）。训练时每个都会运行，所以计划重新加入它们：{values} 个参数及其保留的张量。</translation>
    </message>
    <message>
        <source>{n} convolution(s) apply a fixed filter that is a buffer of their module, not a parameter (an anti-aliasing blur): planned without parameters, keeping their input.</source>
        <translation>{n} 个卷积使用固定滤波器，它是所在模块的缓冲区而不是参数（抗混叠模糊）：按无参数规划，保留其输入。</translation>
    </message>
    <message>
        <source>{n} norm module(s) of the network ({first}) have no node in the file (the exporter&apos;s optimiser merged each with an identical norm) and the file cannot tell which layers read them: the plan leaves them out, so it counts fewer parameters than the network has.</source>
        <translation>网络中有 {n} 个归一化模块（{first}）在文件中没有对应节点（导出器的优化器把每个都与相同的归一化层合并了），而文件无法说明哪些层读取它们：计划未包含它们，因此计算的参数少于网络实际的参数。</translation>
    </message>
    <message>
        <source>In {n} module(s) ({first}) the exporter folded parameters and buffers into one weight, which the plan counts whole as parameters; the buffers&apos; part is not learned and the file does not give its size: the plan may count about {values} parameters too many (if the parts are equal).</source>
        <translation>在 {n} 个模块（{first}）中，导出器把参数和缓冲区折叠成了一个权重，规划将其整体计为参数；缓冲区部分不是学习得到的，文件也未给出其大小：规划可能多计约 {values} 个参数（若各部分大小相同）。</translation>
    </message>
    <message>
        <source>The file fixes the batch size at {fixed}; planning for batch {batch} as asked (shapes re-derived).</source>
        <translation>文件将批大小固定为 {fixed}；按要求以批大小 {batch} 计划（形状已重新推导）。</translation>
    </message>
    <message>
        <source>The file fixes the batch size at 1 (the example it was exported with); the plan uses batch {batch}. Set the batch you train with.</source>
        <translation>文件将批大小固定为 1（导出时使用的示例）；计划使用批大小 {batch}。请设置你训练时用的批大小。</translation>
    </message>
    <message>
        <source>The model fixes the batch size at {fixed} (not a symbolic dimension); the plan uses it as given.</source>
        <translation>模型将批大小固定为 {fixed}（不是符号维度）；计划按此使用。</translation>
    </message>
    <message>
        <source>{op} &apos;{node}&apos; pads unevenly ({begins} before, {ends} after): the plan pads the rounded-up mean on both sides.</source>
        <translation>{op}“{node}”填充不对称（前 {begins}，后 {ends}）：计划在两侧都按向上取整的平均值填充。</translation>
    </message>
    <message>
        <source>node &apos;{node}&apos; has {n} pads for {dims} spatial dimensions</source>
        <translation>节点“{node}”有 {n} 个填充值，对应 {dims} 个空间维度</translation>
    </message>
    <message>
        <source>LayerNormalization &apos;{node}&apos; normalises from axis {axis}; the plan normalises the last dimension (parameters and statistics may differ).</source>
        <translation>LayerNormalization“{node}”从第 {axis} 轴开始归一化；计划只归一化最后一维（参数和统计量可能不同）。</translation>
    </message>
    <message>
        <source>LayerNormalization &apos;{node}&apos; has no bias; the plan counts one ({n} parameters too many).</source>
        <translation type="vanished">LayerNormalization“{node}”没有偏置；计划计入了一个（多出 {n} 个参数）。</translation>
    </message>
    <message>
        <source>Gemm &apos;{node}&apos; transposes its input (transA); the plan reads it untransposed.</source>
        <translation>Gemm“{node}”转置其输入（transA）；计划按未转置读取。</translation>
    </message>
    <message>
        <source>A layer norm written out as operators (&apos;{node}&apos;) has {n} learned tensor(s); the plan counts a scale and a bias.</source>
        <translation>一个由算子写成的层归一化（“{node}”）有 {n} 个可学习张量；计划计入一个缩放和一个偏置。</translation>
    </message>
    <message>
        <source>{op} &apos;{node}&apos; has no bias; the plan counts the biases PyTorch has.</source>
        <translation>{op}“{node}”没有偏置；计划按 PyTorch 拥有的偏置计算。</translation>
    </message>
    <message>
        <source>LSTM &apos;{node}&apos; reads a cell state {h} wide but says hidden_size={p}: PyTorch&apos;s LSTM(hidden_size={h}, proj_size={p}), which the exporter writes without its projection and with its weights cut to {p}-wide gates, so the file computes another network. The plan is PyTorch&apos;s LSTM: {n} parameters the file does not hold ({file} there). Check the exported file before using it.</source>
        <translation>LSTM &apos;{node}&apos; 读取宽度为 {h} 的细胞状态，却声明 hidden_size={p}：这是 PyTorch 的 LSTM(hidden_size={h}, proj_size={p})，导出器写出时丢掉了投影，并把权重截成 {p} 宽的门，因此文件计算的是另一个网络。规划按 PyTorch 的 LSTM：文件中缺少 {n} 个参数（文件中有 {file} 个）。使用该导出文件前请先检查。</translation>
    </message>
    <message>
        <source>the graph has more than {n} entries</source>
        <translation>计算图的条目超过 {n} 个</translation>
    </message>
    <message>
        <source>the graph has more than {n} nodes</source>
        <translation>计算图的节点超过 {n} 个</translation>
    </message>
    <message>
        <source>its graph is larger than {n} MiB without weights</source>
        <translation>不计权重时其计算图大于 {n} MiB</translation>
    </message>
    <message>
        <source>a field of {n} MiB</source>
        <translation>一个 {n} MiB 的字段</translation>
    </message>
    <message>
        <source>cannot be read ({why})</source>
        <translation>无法读取（{why}）</translation>
    </message>
    <message>
        <source>no such file</source>
        <translation>文件不存在</translation>
    </message>
    <message>
        <source>is a folder, not an ONNX file</source>
        <translation>是文件夹，不是 ONNX 文件</translation>
    </message>
    <message>
        <source>the file is empty</source>
        <translation>文件为空</translation>
    </message>
    <message>
        <source>too large to plan: {why}</source>
        <translation>过大，无法计划：{why}</translation>
    </message>
    <message>
        <source>not an ONNX file, or a truncated one (it cannot be skimmed, and it is too large to read whole: {n} MiB)</source>
        <translation>不是 ONNX 文件，或文件被截断（无法略读，且太大无法整体读取：{n} MiB）</translation>
    </message>
    <message>
        <source>not an ONNX file, or a truncated one ({why})</source>
        <translation>不是 ONNX 文件，或文件被截断（{why}）</translation>
    </message>
    <message>
        <source>too large to plan: the graph has more than {n} nodes</source>
        <translation>过大，无法计划：计算图的节点超过 {n} 个</translation>
    </message>
    <message>
        <source>not an ONNX network (the file holds no graph nodes)</source>
        <translation>不是 ONNX 网络（文件中没有计算图节点）</translation>
    </message>
    <message>
        <source>QLoRA fine-tuning of a Llama-shaped 8B model (4-bit base, rank 16, 2048-token context, bf16)</source>
        <translation>Llama 结构 8B 模型的 QLoRA 微调（4 位基座，秩 16，2048 词元上下文，bf16）</translation>
    </message>
    <message>
        <source>ViT-B/16 at batch 64 (224×224, mixed bf16)</source>
        <translation>ViT-B/16，批量 64（224×224，混合 bf16）</translation>
    </message>
    <message>
        <source>full fine-tuning of a Llama-shaped 1B model (2048-token context, bf16)</source>
        <translation>Llama 结构 1B 模型的全参数微调（2048 词元上下文，bf16）</translation>
    </message>
    <message>
        <source>optimizer_8bit_block must be a whole number of at least 1</source>
        <translation>optimizer_8bit_block 必须是不小于 1 的整数</translation>
    </message>
    <message>
        <source>serving_memory_fraction must be above 0 and at most 1</source>
        <translation>serving_memory_fraction 必须大于 0 且不大于 1</translation>
    </message>
    <message>
        <source>serving_activation_factor must be between 0 and 100</source>
        <translation>serving_activation_factor 必须在 0 到 100 之间</translation>
    </message>
    <message>
        <source>values per fp32 scale of bitsandbytes&apos; 8-bit optimizer state (block-wise quantisation, Dettmers et al. 2022)</source>
        <translation>bitsandbytes 8 位优化器状态中每个 fp32 缩放因子对应的值数（分块量化，Dettmers 等 2022）</translation>
    </message>
    <message>
        <source>share of a card&apos;s memory a server gives weights and KV cache (vLLM&apos;s gpu_memory_utilization default 0.9)</source>
        <translation>推理服务分给权重和 KV 缓存的显存比例（vLLM 的 gpu_memory_utilization 默认 0.9）</translation>
    </message>
    <message>
        <source>activations of one serving step as a multiple of hidden × tokens (a guess; the MLP&apos;s intermediate dominates)</source>
        <translation>一次推理步的激活，按 隐藏维 × 词元数 的倍数计（估计值；MLP 的中间层占主导）</translation>
    </message>
    <message>
        <source>LoRA rank must be a whole number from 1 to 4096, not {rank!r}</source>
        <translation>LoRA 秩必须是 1 到 4096 的整数，而不是 {rank!r}</translation>
    </message>
    <message>
        <source>LoRA targets must name at least one projection</source>
        <translation>LoRA 目标必须至少指定一个投影层</translation>
    </message>
    <message>
        <source>LoRA quant &apos;{quant}&apos; is not none, nf4, nf4_dq or int8</source>
        <translation>LoRA 量化 &apos;{quant}&apos; 不是 none、nf4、nf4_dq 或 int8</translation>
    </message>
    <message>
        <source>LoRA targets {targets} match no linear layer of the draft</source>
        <translation>LoRA 目标 {targets} 没有匹配草图中的任何线性层</translation>
    </message>
    <message>
        <source>{name} must be a whole number from 1 to 16777216, not {v!r}</source>
        <translation>{name} 必须是 1 到 16777216 的整数，而不是 {v!r}</translation>
    </message>
    <message>
        <source>weight and KV bits must be 16, 8 or 4, not {w} and {k}</source>
        <translation>权重和 KV 位数必须是 16、8 或 4，而不是 {w} 和 {k}</translation>
    </message>
    <message>
        <source>the draft has no attention layer: there is no KV cache to plan</source>
        <translation>草图没有注意力层：没有 KV 缓存可规划</translation>
    </message>
    <message>
        <source>{where}: {problem}</source>
        <translation>{where}：{problem}</translation>
    </message>
    <message>
        <source>the field &apos;{name}&apos; is missing</source>
        <translation>缺少字段 &apos;{name}&apos;</translation>
    </message>
    <message>
        <source>the field &apos;{name}&apos; must be true or false, not {value}</source>
        <translation>字段 &apos;{name}&apos; 必须是 true 或 false，而不是 {value}</translation>
    </message>
    <message>
        <source>the field &apos;{name}&apos; must be a whole number, not {value}</source>
        <translation>字段 &apos;{name}&apos; 必须是整数，而不是 {value}</translation>
    </message>
    <message>
        <source>the field &apos;hidden_act&apos; = {value} is not understood</source>
        <translation>无法理解字段 &apos;hidden_act&apos; = {value}</translation>
    </message>
    <message>
        <source>the field &apos;activation_function&apos; = {value} is not understood</source>
        <translation>无法理解字段 &apos;activation_function&apos; = {value}</translation>
    </message>
    <message>
        <source>shorter than a safetensors header</source>
        <translation>短于 safetensors 文件头</translation>
    </message>
    <message>
        <source>header length {length} is not between 2 and {limit} bytes</source>
        <translation>文件头长度 {length} 不在 2 到 {limit} 字节之间</translation>
    </message>
    <message>
        <source>cannot be read ({problem})</source>
        <translation>无法读取（{problem}）</translation>
    </message>
    <message>
        <source>the header is cut short</source>
        <translation>文件头被截断</translation>
    </message>
    <message>
        <source>the header is not valid JSON ({problem})</source>
        <translation>文件头不是有效的 JSON（{problem}）</translation>
    </message>
    <message>
        <source>the header is not a JSON object</source>
        <translation>文件头不是 JSON 对象</translation>
    </message>
    <message>
        <source>more than {limit} safetensors files</source>
        <translation>safetensors 文件超过 {limit} 个</translation>
    </message>
    <message>
        <source>the tensor&apos;s shape is not valid</source>
        <translation>张量的形状无效</translation>
    </message>
    <message>
        <source>is not a folder</source>
        <translation>不是文件夹</translation>
    </message>
    <message>
        <source>has no config.json</source>
        <translation>没有 config.json</translation>
    </message>
    <message>
        <source>not valid JSON (line {lineno}: {msg})</source>
        <translation>不是有效的 JSON（第 {lineno} 行：{msg}）</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <source>the field &apos;model_type&apos; is missing</source>
        <translation>缺少字段 &apos;model_type&apos;</translation>
    </message>
    <message>
        <source>model_type &apos;{model_type}&apos; is not one the planner knows ({known})</source>
        <translation>规划器不认识 model_type &apos;{model_type}&apos;（已知：{known}）</translation>
    </message>
    <message>
        <source>{problem}</source>
        <translation>{problem}</translation>
    </message>
    <message>
        <source>the plan built from it is not valid: {problem}</source>
        <translation>由此构建的方案无效：{problem}</translation>
    </message>
    <message>
        <source>times must be a whole number from 1 to {limit}, not {times!r}</source>
        <translation>times 必须是 1 到 {limit} 的整数，而不是 {times!r}</translation>
    </message>
    <message>
        <source>a repeated block needs layers</source>
        <translation>重复块需要层</translation>
    </message>
    <message>
        <source>the input layer cannot be repeated</source>
        <translation>输入层不能重复</translation>
    </message>
    <message>
        <source>select the layers to repeat</source>
        <translation>请选择要重复的层</translation>
    </message>
    <message>
        <source>the selection overlaps a repeated block</source>
        <translation>所选内容与重复块重叠</translation>
    </message>
    <message>
        <source>the copies of block {name} are no longer alike</source>
        <translation>块 {name} 的各副本已不再相同</translation>
    </message>
    <message>
        <source>{field} = {value!r}: {why}</source>
        <translation>{field} = {value!r}：{why}</translation>
    </message>
    <message>
        <source>not a known family</source>
        <translation>不是已知的模型族</translation>
    </message>
    <message>
        <source>must be a whole number of at least 1</source>
        <translation>必须是不小于 1 的整数</translation>
    </message>
    <message>
        <source>more than 1024 layers</source>
        <translation>超过 1024 层</translation>
    </message>
    <message>
        <source>must divide the heads</source>
        <translation>必须整除头数</translation>
    </message>
    <message>
        <source>must divide the hidden size</source>
        <translation>必须整除隐藏维</translation>
    </message>
    <message>
        <source>not swiglu, gelu or gelu_new</source>
        <translation>不是 swiglu、gelu 或 gelu_new</translation>
    </message>
    <message>
        <source>not silu or gelu</source>
        <translation>不是 silu 或 gelu</translation>
    </message>
    <message>
        <source>not rmsnorm or layernorm</source>
        <translation>不是 rmsnorm 或 layernorm</translation>
    </message>
    <message>
        <source>not rotary or learned</source>
        <translation>不是 rotary 或 learned</translation>
    </message>
    <message>
        <source>not sdpa_flash, sdpa_mem_efficient or eager</source>
        <translation>不是 sdpa_flash、sdpa_mem_efficient 或 eager</translation>
    </message>
    <message>
        <source>must be at least 0 and below 1</source>
        <translation>必须不小于 0 且小于 1</translation>
    </message>
    <message>
        <source>longer than max_positions (the learned position table)</source>
        <translation>长于 max_positions（可学习位置表）</translation>
    </message>
    <message>
        <source>unknown field(s): {names}</source>
        <translation>未知字段：{names}</translation>
    </message>
    <message>
        <source>ViT-B/16</source>
        <translation>ViT-B/16</translation>
    </message>
    <message>
        <source>ViT-Base, 16×16 patches, 224×224×3, 1000 classes: 12 layers, hidden 768, MLP 3072, 12 heads (Dosovitskiy et al. 2021, Table 1; google/vit-base-patch16-224).</source>
        <translation>ViT-Base，16×16 图块，224×224×3，1000 类：12 层，隐藏维 768，MLP 3072，12 个头（Dosovitskiy 等 2021，表 1；google/vit-base-patch16-224）。</translation>
    </message>
    <message>
        <source>BERT-base</source>
        <translation>BERT 基础模型</translation>
    </message>
    <message>
        <source>BERT-base with its masked-LM head, 128-token sequences: 12 layers, hidden 768, 12 heads, vocabulary 30,522, 512 positions (Devlin et al. 2019; bert-base-uncased).</source>
        <translation>带掩码语言模型头的 BERT-base，128 词元序列：12 层，隐藏维 768，12 个头，词表 30,522，512 个位置（Devlin 等 2019；bert-base-uncased）。</translation>
    </message>
    <message>
        <source>GPT-2 (124M)</source>
        <translation>GPT-2（124M）</translation>
    </message>
    <message>
        <source>GPT-2 small, 1024-token sequences: 12 layers, hidden 768, 12 heads, vocabulary 50,257, LM head tied (Radford et al. 2019; openai-community/gpt2 config).</source>
        <translation>GPT-2 small，1024 词元序列：12 层，隐藏维 768，12 个头，词表 50,257，语言模型头绑定（Radford 等 2019；openai-community/gpt2 配置）。</translation>
    </message>
    <message>
        <source>Llama-shaped 1B</source>
        <translation>Llama 结构 1B</translation>
    </message>
    <message>
        <source>Llama 3.2 1B&apos;s shape, 2048-token sequences: 16 layers, hidden 2048, 32 heads with 8 key/value heads, SwiGLU 8192, vocabulary 128,256, tied head (meta-llama/Llama-3.2-1B config.json).</source>
        <translation>Llama 3.2 1B 的结构，2048 词元序列：16 层，隐藏维 2048，32 个头、8 个键/值头，SwiGLU 8192，词表 128,256，头绑定（meta-llama/Llama-3.2-1B config.json）。</translation>
    </message>
    <message>
        <source>Llama-shaped 8B</source>
        <translation>Llama 结构 8B</translation>
    </message>
    <message>
        <source>Llama 3.1 8B&apos;s shape, 2048-token sequences: 32 layers, hidden 4096, 32 heads with 8 key/value heads, SwiGLU 14336, vocabulary 128,256 (Llama 3 paper, Table 3; meta-llama/Llama-3.1-8B config.json).</source>
        <translation>Llama 3.1 8B 的结构，2048 词元序列：32 层，隐藏维 4096，32 个头、8 个键/值头，SwiGLU 14336，词表 128,256（Llama 3 论文表 3；meta-llama/Llama-3.1-8B config.json）。</translation>
    </message>
    <message>
        <source>Llama-shaped 70B</source>
        <translation>Llama 结构 70B</translation>
    </message>
    <message>
        <source>Llama 3.1 70B&apos;s shape, 2048-token sequences: 80 layers, hidden 8192, 64 heads with 8 key/value heads, SwiGLU 28672, vocabulary 128,256 (Llama 3 paper, Table 3; meta-llama/Llama-3.1-70B config.json).</source>
        <translation>Llama 3.1 70B 的结构，2048 词元序列：80 层，隐藏维 8192，64 个头、8 个键/值头，SwiGLU 28672，词表 128,256（Llama 3 论文表 3；meta-llama/Llama-3.1-70B config.json）。</translation>
    </message>
    <message>
        <source>{rate} tokens/s</source>
        <translation>{rate} 词元/秒</translation>
    </message>
    <message>
        <source>{rate} tokens/s {band}</source>
        <translation>{rate} 词元/秒 {band}</translation>
    </message>
    <message>
        <source>{rate} samples/s {band}</source>
        <translation>{rate} 样本/秒 {band}</translation>
    </message>
    <message>
        <source>{rate} tokens/s ±{band} %</source>
        <translation type="vanished">{rate} 词元/秒 ±{band} %</translation>
    </message>
    <message>
        <source>{rate} samples/s</source>
        <translation>{rate} 样本/秒</translation>
    </message>
    <message>
        <source>{rate} samples/s ±{band} %</source>
        <translation type="vanished">{rate} 样本/秒 ±{band} %</translation>
    </message>
    <message>
        <source>{speed}, {seconds} s per step</source>
        <translation>{speed}，每步 {seconds} 秒</translation>
    </message>
    <message>
        <source>{n} attention block(s) of this decoder (it builds a causal mask) read keys and values straight from their projections, and the file no longer has the exporter&apos;s record that says whether the model copied them into a key/value cache (the record is missing from legacy exports and from files an optimiser or a re-save stripped of their metadata). If the model runs with a key/value cache (Hugging Face decoders do by default, also in training), attention keeps those copies: {bytes} more at batch {batch} ({pct} % of the plan&apos;s saved bytes), not in the plan. Training with use_cache=False avoids them; a file from torch.onnx.export with its metadata kept is planned exactly.</source>
        <translation>此解码器（它构建了因果掩码）的 {n} 个注意力块直接从投影读取键和值，而文件中已没有导出器的记录来说明模型是否把它们复制进了键/值缓存（旧版导出器的文件没有该记录；经优化器处理或重新保存而去掉元数据的文件也没有）。如果模型运行时使用键/值缓存（Hugging Face 的解码器默认如此，训练时也是），注意力会保留这些副本：批量 {batch} 时多 {bytes}（占方案保存字节的 {pct} %），未计入方案。训练时设置 use_cache=False 可避免；由 torch.onnx.export 导出并保留元数据的文件会被精确规划。</translation>
    </message>
    <message>
        <source>{n} FastGelu operator(s) (onnxruntime&apos;s fused tanh GELU) are planned as one GELU each, keeping its input (F.gelu(approximate=&apos;tanh&apos;)). If the network writes the GELU in Python (GPT-2&apos;s gelu_new), training keeps 3 more tensors of its size: {mib} MiB more per sample in fp32 than planned.</source>
        <translation>{n} 个 FastGelu 算子（onnxruntime 融合的 tanh GELU）各按一个 GELU 规划，保留其输入（F.gelu(approximate=&apos;tanh&apos;)）。如果网络用 Python 写出 GELU（GPT-2 的 gelu_new），训练时会多保留 3 个同样大小的张量：fp32 下每个样本比规划多 {mib} MiB。</translation>
    </message>
    <message>
        <source>{n} attention operator(s) fused by onnxruntime (com.microsoft) are planned as their projections and fused scaled-dot-product attention (q, k, v, the output and a logsumexp kept).</source>
        <translation>{n} 个由 onnxruntime（com.microsoft）融合的注意力算子按其投影和融合的缩放点积注意力规划（保留 q、k、v、输出和一个 logsumexp）。</translation>
    </message>
    <message>
        <source>The file quantizes its activations ({n} quantize/dequantize steps): the saved activations of such files were measured up to 67 % above what the float network keeps in training. Plan the unquantized export for training figures.</source>
        <translation>该文件对激活做了量化（{n} 个量化/反量化步骤）：这类文件保存的激活实测比浮点网络训练时保留的多出最多 67 %。要得到训练数据，请规划未量化的导出。</translation>
    </message>
    <message>
        <source>The file stores {n} weight tensor(s) quantized ({values} values as 8- or 4-bit integers with scales): they are counted as the float parameters they stand for, and the plan trains them at the precision you choose (the file&apos;s own storage is an inference format; for QLoRA-style training choose --finetune qlora).</source>
        <translation>该文件以量化形式存储 {n} 个权重张量（{values} 个值，为带缩放因子的 8 位或 4 位整数）：它们按所代表的浮点参数计数，规划按您选择的精度训练它们（文件自身的存储是推理格式；QLoRA 式训练请选择 --finetune qlora）。</translation>
    </message>
    <message>
        <source>This file was converted from TensorFlow&apos;s inference graph: {n} batch norm(s) were folded into the convolutions before them or written as a per-channel product, so their parameters and what they keep for backward are not in the file as norms. Training has them: the plan puts them back as batch norms with a learned scale and shift ({params} parameters; the moving mean and variance, {buffers} values that Keras&apos;s count_params() also counts, are buffers, not parameters). A norm without a learned scale or shift (Keras&apos;s scale=False or center=False) has {channels} fewer per part it lacks. Dropout layers the conversion removed are not planned.</source>
        <translation>此文件由 TensorFlow 的推理图转换而来：{n} 个批归一化被折叠进其前面的卷积，或写成逐通道乘法，因此文件中没有作为归一化层的参数及其为反向传播保存的张量。训练时它们存在：计划将其恢复为带可学习缩放和偏移的批归一化（{params} 个参数；滑动均值和方差共 {buffers} 个值，Keras 的 count_params() 也会计入，但它们是缓冲区而非参数）。没有可学习缩放或偏移的归一化（Keras 的 scale=False 或 center=False）每缺少一项就少 {channels} 个参数。转换时移除的 dropout 层未计入计划。</translation>
    </message>
    <message>
        <source>TensorFlow&apos;s optimiser removes all-zero tensors before the conversion, and this file shows it did ({what}: an untrained network), so it cannot tell whether its {n} convolution or dense layer(s) without a bias had one (Keras&apos;s use_bias=True, the default): the plan assumes not; if they had, it counts up to {units} parameters too few.</source>
        <translation>TensorFlow 的优化器在转换前会移除全零张量，而此文件显示确实如此（{what}：未训练的网络），因此无法判断其中 {n} 个没有偏置的卷积层或全连接层原本是否有偏置（Keras 默认 use_bias=True）：计划假定没有；如果有，则最多少计 {units} 个参数。</translation>
    </message>
    <message>
        <source>{n} convolution or dense layer(s) have no bias in the file and are planned without one (TensorFlow&apos;s optimiser removes a bias only where it is all zeros, as in an untrained network; if they had one, {units} parameters more).</source>
        <translation>{n} 个卷积层或全连接层在文件中没有偏置，计划按无偏置处理（TensorFlow 的优化器只会移除全零的偏置，如未训练的网络；如果原本有偏置，则多 {units} 个参数）。</translation>
    </message>
    <message>
        <source>tf2onnx folded {n} batch norm(s) into the convolutions before them together with any bias of their own, so the file cannot tell whether those convolutions had one (Keras&apos;s use_bias=True, the default): the plan assumes not; if they had, it counts up to {units} parameters too few.</source>
        <translation>tf2onnx 将 {n} 个批归一化连同卷积自身可能有的偏置一起折叠进其前面的卷积，因此文件无法判断这些卷积原本是否有偏置（Keras 默认 use_bias=True）：计划假定没有；如果有，则最多少计 {units} 个参数。</translation>
    </message>
    <message>
        <source>batch norms without a shift</source>
        <translation>没有偏移的批归一化</translation>
    </message>
    <message>
        <source>no layer with a bias</source>
        <translation>没有任何带偏置的层</translation>
    </message>
</context>
</TS>
