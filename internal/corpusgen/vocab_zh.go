package corpusgen

import "strings"

// zhWords is the Chinese vocabulary about programming, most frequent first
// (the Zipf rank, as for enWords). Chinese is written without spaces, so
// the two-character words recur inside longer runs of text, which is what a
// substring search over CJK text has to find (SPEC §7).
var zhWords = strings.Fields(`
的 了 是 在 这个 我们 需要 一个 数据 文件 函数 索引 可以 错误 测试 会话
没有 修改 问题 代码 应该 如果 查询 然后 现在 已经 但是 因为 所以 还是 分支
返回 参数 配置 接口 变量 类型 模块 性能 内存 缓存 数据库 服务器 客户端 请求
响应 日志 提交 合并 版本 依赖 编译 运行 调试 部署 线程 并发 队列 任务 字段
结构 对象 数组 字符串 路径 目录 节点 父节点 子节点 叶子 分页 排序 过滤 搜索
全文 检索 分词 中文 编码 解码 格式 解析 验证 异常 超时 重试 连接 事务 迁移
主键 外键 约束 视图 组件 渲染 主题 颜色 样式 编辑器 选择器 终端 命令 脚本
工具 模型 上下文 压缩 摘要 标签 名称 用户 助手 思考 输出 输入 读取 写入 删除
创建 更新 处理 调用 实现 重构 优化 检查 修复 问题 原因 结果 方法 逻辑 流程
行为 规则 默认 选项 设置 环境 变量 权限 安全 加密 签名 令牌 认证 登录 会话树
工作区 仓库 远程 本地 同步 异步 回调 事件 监听 信号 进程 退出 状态 损坏 恢复
截断 追加 尾部 换行 偏移 字节 长度 大小 行号 统计 基准 吞吐 延迟 瓶颈 内核
请 帮我 看看 一下 先 再 都 也 就 会 能 要 用 对 从 到 给 让 被 比 更 很 太 最
比较 明显 稍后 偶尔 总是 直接 完整 全部 部分 其他 这样 那样 怎么 为什么 哪里
`)

// zhSentences are whole sentences mixed into generated Chinese text, so
// that real phrases recur verbatim across sessions.
var zhSentences = []string{
	"请帮我看一下这个函数为什么返回错误。",
	"索引重建之后查询速度明显变快了。",
	"这个测试在并发写入时偶尔会失败。",
	"我们需要把会话文件按工作区分组。",
	"先读取整个文件，然后再修改配置。",
	"数据库被锁住了，稍后重试。",
	"中文分词对全文检索很重要。",
	"这个分支的修改还没有合并到主分支。",
	"文件末尾有一行没有换行符，需要修复。",
	"上下文太长了，先做一次压缩。",
	"请不要删除原始数据，只追加新的记录。",
	"性能瓶颈在解析阶段，不在写入阶段。",
	"把这个逻辑提取成一个单独的函数。",
	"测试全部通过了，可以提交了。",
	"路径里有中文字符，编码要注意。",
	"这个接口的返回值类型不对。",
}

// zhShort are short Chinese prompts.
var zhShort = []string{"继续", "好的", "再试一次", "运行测试", "提交吧", "撤销这个修改"}

// zhTitles name sessions (session_info) written in Chinese.
var zhTitles = []string{"修复索引查询", "重构会话树", "中文全文检索", "数据库迁移", "性能优化",
	"修复损坏的文件", "主题颜色调整", "编辑器快捷键"}

// enTitles name sessions written in English.
var enTitles = []string{"Refactor auth module", "Port user-message selector", "Fix flaky tests",
	"Index rebuild", "Theme tokens", "Compaction summary bug", "SQLite busy errors",
	"Add search filters", "Release v0.9", "Fork handling"}
