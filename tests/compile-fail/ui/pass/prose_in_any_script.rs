//! `how` in Chinese, Japanese and Thai prose compiles; so does prose that
//! begins with a word like "Placeholder".

use learnables::Learnable;

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "按照商品的HS章节查表决定，表中没有的章节交给综合窗口处理",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Chinese {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules_ja",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "HS番号の章ごとに表で担当窓口を決め、表にない章は一般窓口に回す",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Japanese {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules_th",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "ใช้ตารางตามบทของพิกัดศุลกากรเพื่อเลือกโต๊ะ",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct Thai {
    /// HS chapter
    pub chapter: u8,
}

#[derive(Learnable)]
#[learnable(
    collection = "routing_rules_en",
    entry = "routing rule",
    teaches = "Which desk handles a declaration",
    how = "Placeholder values in the table are replaced by the desk lead each morning",
    decided_by = "rules",
    describes = "Chapter {chapter}"
)]
pub struct English {
    /// HS chapter
    pub chapter: u8,
}

fn main() {
    use learnables::Declaration;
    let declaration = Declaration::new()
        .learnable::<Chinese>()
        .learnable::<Japanese>()
        .learnable::<Thai>()
        .learnable::<English>();
    declaration.validate().expect("prose in any script is valid at run time too");
}
