//! The analysis of one file: the functions it declares, the exported `register`, what
//! it collects, what a call's arguments spell, and the scans of `register` (its `on`
//! calls) and of a hook (its `$` calls).

use super::read::LineIndex;
use super::visit::{DollarScan, OnScan};
use super::{ModuleReport, Rule};
use oxc::ast::ast::{
    Argument, ArrayExpressionElement, ArrowFunctionExpression, Declaration,
    ExportDefaultDeclarationKind, Expression, FormalParameters, Function, ModuleExportName,
    ObjectExpression, ObjectPropertyKind, Program, Statement,
};
use oxc::ast_visit::Visit;
use oxc::span::{GetSpan, Span};
use std::collections::{HashMap, HashSet};

/// A function written in the file: a declaration or expression, or an arrow.
#[derive(Clone, Copy)]
pub(super) enum FnRef<'r, 'a> {
    Func(&'r Function<'a>),
    Arrow(&'r ArrowFunctionExpression<'a>),
}

impl<'r, 'a> FnRef<'r, 'a> {
    pub(super) fn span(self) -> Span {
        match self {
            FnRef::Func(f) => f.span,
            FnRef::Arrow(f) => f.span,
        }
    }

    pub(super) fn params(self) -> &'r FormalParameters<'a> {
        match self {
            FnRef::Func(f) => &f.params,
            FnRef::Arrow(f) => &f.params,
        }
    }

    fn body_statements(self) -> &'r [Statement<'a>] {
        match self {
            FnRef::Func(f) => f.body.as_ref().map_or(&[], |b| b.statements.as_slice()),
            FnRef::Arrow(f) => f.body.statements.as_slice(),
        }
    }

    fn visit_body<V: Visit<'a>>(self, v: &mut V) {
        match self {
            FnRef::Func(f) => {
                if let Some(body) = &f.body {
                    v.visit_function_body(body);
                }
            }
            FnRef::Arrow(f) => v.visit_function_body(&f.body),
        }
    }

    /// The name bound by parameter `index`: `Ok(None)` when there is no such parameter,
    /// `Err(span)` when it is a destructuring or a rest parameter.
    pub(super) fn param_name(self, index: usize) -> Result<Option<(&'r str, Span)>, Span> {
        let params = self.params();
        match params.items.get(index) {
            Some(p) => match p.pattern.kind.get_binding_identifier() {
                Some(id) => Ok(Some((id.name.as_str(), id.span))),
                None => Err(p.span),
            },
            None => match &params.rest {
                Some(rest) if index >= params.items.len() => Err(rest.span),
                _ => Ok(None),
            },
        }
    }
}

/// The function an expression is, when it is one written in place.
pub(super) fn fn_of<'r, 'a>(e: &'r Expression<'a>) -> Option<FnRef<'r, 'a>> {
    match e.get_inner_expression() {
        Expression::ArrowFunctionExpression(f) => Some(FnRef::Arrow(f)),
        Expression::FunctionExpression(f) => Some(FnRef::Func(f)),
        _ => None,
    }
}

/// The functions a list of statements declares by name at its own level (function
/// declarations, `const f = () => …`), exported or not.
pub(super) fn top_level_functions<'r, 'a>(
    body: &'r [Statement<'a>],
) -> HashMap<&'r str, FnRef<'r, 'a>> {
    let mut fns = HashMap::new();
    for stmt in body {
        let declaration = match stmt {
            Statement::ExportNamedDeclaration(e) => e.declaration.as_ref(),
            Statement::ExportDefaultDeclaration(e) => {
                if let ExportDefaultDeclarationKind::FunctionDeclaration(f) = &e.declaration {
                    if let Some(id) = &f.id {
                        fns.insert(id.name.as_str(), FnRef::Func(f));
                    }
                }
                None
            }
            other => other.as_declaration(),
        };
        match declaration {
            Some(Declaration::FunctionDeclaration(f)) => {
                if let Some(id) = &f.id {
                    fns.insert(id.name.as_str(), FnRef::Func(f));
                }
            }
            Some(Declaration::VariableDeclaration(v)) => {
                for d in &v.declarations {
                    if let (Some(id), Some(f)) = (
                        d.id.kind.get_binding_identifier(),
                        d.init.as_ref().and_then(fn_of),
                    ) {
                        fns.insert(id.name.as_str(), f);
                    }
                }
            }
            _ => {}
        }
    }
    fns
}

pub(super) fn export_name<'a>(n: &ModuleExportName<'a>) -> &'a str {
    match n {
        ModuleExportName::IdentifierName(n) => n.name.as_str(),
        ModuleExportName::IdentifierReference(n) => n.name.as_str(),
        ModuleExportName::StringLiteral(s) => s.value.as_str(),
    }
}

/// The function the module exports as `register` (`export function register`,
/// `export const register = …`, `export { f as register }`).
pub(super) fn find_register<'r, 'a>(
    program: &'r Program<'a>,
    ctx: &Ctx<'r, 'a>,
) -> Option<FnRef<'r, 'a>> {
    for stmt in &program.body {
        let Statement::ExportNamedDeclaration(e) = stmt else {
            continue;
        };
        if e.source.is_some() {
            continue;
        }
        match &e.declaration {
            Some(Declaration::FunctionDeclaration(f))
                if f.id.as_ref().is_some_and(|id| id.name == "register") =>
            {
                return Some(FnRef::Func(f));
            }
            Some(Declaration::VariableDeclaration(v)) => {
                for d in &v.declarations {
                    if d.id
                        .kind
                        .get_identifier_name()
                        .is_some_and(|n| n == "register")
                    {
                        return d.init.as_ref().and_then(fn_of);
                    }
                }
            }
            _ => {}
        }
        for s in &e.specifiers {
            if export_name(&s.exported) == "register" {
                return ctx.fns.get(export_name(&s.local)).copied();
            }
        }
    }
    None
}

/// What every visitor of one file reads.
pub(super) struct Ctx<'r, 'a> {
    pub(super) src: &'r str,
    pub(super) lines: &'r LineIndex<'r>,
    /// The file's top-level functions by name.
    pub(super) fns: HashMap<&'r str, FnRef<'r, 'a>>,
}

impl Ctx<'_, '_> {
    pub(super) fn at(&self, span: Span) -> (usize, usize) {
        self.lines
            .at(usize::try_from(span.start).unwrap_or(usize::MAX))
    }

    fn text(&self, span: Span) -> String {
        let start = usize::try_from(span.start).unwrap_or(usize::MAX);
        let end = usize::try_from(span.end).unwrap_or(usize::MAX);
        self.src
            .get(start..end)
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    }

    /// The name of the top-level function starting at `span`, if it is one.
    pub(super) fn top_level_name(&self, span: Span) -> Option<String> {
        self.fns
            .iter()
            .find(|(_, f)| f.span() == span)
            .map(|(name, _)| (*name).to_owned())
    }
}

/// What the analysis of one file collects.
pub(super) struct Out {
    pub(super) report: ModuleReport,
    /// `(function start, parameter index)` already analysed as `$`.
    pub(super) dollar_done: HashSet<(u32, usize)>,
    /// Likewise as `on`.
    on_done: HashSet<(u32, usize)>,
}

impl Out {
    pub(super) fn new(report: ModuleReport) -> Self {
        Out {
            report,
            dollar_done: HashSet::new(),
            on_done: HashSet::new(),
        }
    }

    pub(super) fn problem(&mut self, rule: Rule, at: (usize, usize), message: String) {
        self.report.problem(rule, at, message);
    }

    pub(super) fn finish(mut self) -> ModuleReport {
        // One pattern twice without a filter (the engine refuses the second `on`).
        let mut plain: HashSet<String> = HashSet::new();
        let mut dups = Vec::new();
        for h in &self.report.hooks {
            if h.filter.is_none() && !plain.insert(h.event.clone()) {
                dups.push((
                    (h.line, h.column),
                    format!(
                        "on(\"{}\") is registered twice without a matcher",
                        fnhooks::escaped(&h.event)
                    ),
                ));
            }
        }
        for (at, message) in dups {
            self.problem(Rule::DuplicateRegistration, at, message);
        }
        self.report
    }
}

/// The string a literal argument spells: a string, a template without substitutions.
pub(super) fn literal_string<'a>(e: &Expression<'a>) -> Option<String> {
    match e.get_inner_expression() {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => {
            t.single_quasi().map(|q| q.to_string())
        }
        _ => None,
    }
}

/// The name an `env`/`state` argument gives: a literal, or an object literal's `name`.
pub(super) fn literal_name<'a>(arg: Option<&Argument<'a>>) -> Option<String> {
    let e = arg?.as_expression()?;
    if let Some(s) = literal_string(e) {
        return Some(s);
    }
    let Expression::ObjectExpression(o) = e.get_inner_expression() else {
        return None;
    };
    o.properties.iter().find_map(|p| match p {
        ObjectPropertyKind::ObjectProperty(p)
            if !p.computed && p.key.static_name().is_some_and(|k| k == "name") =>
        {
            literal_string(&p.value)
        }
        _ => None,
    })
}

/// A filter as `validate` prints it: `{command=tally}`.
pub(super) fn render_object(ctx: &Ctx<'_, '_>, o: &ObjectExpression<'_>) -> String {
    let fields: Vec<String> = o
        .properties
        .iter()
        .map(|p| match p {
            ObjectPropertyKind::ObjectProperty(p) => {
                let key = if p.computed {
                    format!("[{}]", ctx.text(p.key.span()))
                } else {
                    p.key
                        .static_name()
                        .map_or_else(|| ctx.text(p.key.span()), |k| k.to_string())
                };
                format!("{key}={}", render_value(ctx, &p.value))
            }
            ObjectPropertyKind::SpreadProperty(s) => ctx.text(s.span),
        })
        .collect();
    format!("{{{}}}", fields.join(","))
}

pub(super) fn render_value(ctx: &Ctx<'_, '_>, e: &Expression<'_>) -> String {
    if let Some(s) = literal_string(e) {
        return s;
    }
    match e.get_inner_expression() {
        Expression::ObjectExpression(o) => render_object(ctx, o),
        Expression::ArrayExpression(a) => {
            let items: Vec<String> = a
                .elements
                .iter()
                .map(|el| match el {
                    ArrayExpressionElement::SpreadElement(s) => ctx.text(s.span),
                    ArrayExpressionElement::Elision(_) => String::new(),
                    other => other
                        .as_expression()
                        .map_or_else(String::new, |e| render_value(ctx, e)),
                })
                .collect();
            format!("[{}]", items.join(","))
        }
        other => ctx.text(other.span()),
    }
}

/// Analyses `f` with its parameter `index` as `register`'s `on` (`via`: the helper
/// `register` handed it to).
pub(super) fn scan_on<'r, 'a>(
    ctx: &Ctx<'r, 'a>,
    out: &mut Out,
    f: FnRef<'r, 'a>,
    index: usize,
    via: Option<&str>,
) {
    if !out.on_done.insert((f.span().start, index)) {
        return;
    }
    let Ok(Some((on, _))) = f.param_name(index) else {
        return;
    };
    let mut locals = top_level_functions(f.body_statements());
    for (name, g) in &ctx.fns {
        locals.entry(*name).or_insert(*g);
    }
    let mut v = OnScan {
        ctx,
        out,
        on,
        via: via.map(str::to_owned),
        locals,
        regs: HashSet::new(),
    };
    f.visit_body(&mut v);
}

/// Analyses `f` with its parameter `index` as `$` (a hook's first parameter, or a
/// helper's that a hook passed `$` to: `via`).
pub(super) fn scan_dollar<'r, 'a>(
    ctx: &Ctx<'_, 'a>,
    out: &mut Out,
    f: FnRef<'r, 'a>,
    index: usize,
    next_index: Option<usize>,
    via: Option<&str>,
) {
    if !out.dollar_done.insert((f.span().start, index)) {
        return;
    }
    let dollar = match f.param_name(index) {
        Ok(Some((name, _))) => name,
        Ok(None) => return,
        Err(span) => {
            out.problem(
                Rule::DollarValue,
                ctx.at(span),
                "$ is used as a value (destructured)".to_owned(),
            );
            return;
        }
    };
    let next = next_index
        .and_then(|i| f.param_name(i).ok().flatten())
        .map(|(n, _)| n);
    let mut v = DollarScan {
        ctx,
        out,
        dollar,
        next,
        via: via.map(str::to_owned),
    };
    f.visit_body(&mut v);
}

/// The hook function `e` names: written in place, or a function of `locals` by name.
pub(super) fn hook_fn<'e, 'a>(
    locals: &HashMap<&'e str, FnRef<'e, 'a>>,
    e: &'e Expression<'a>,
) -> Option<FnRef<'e, 'a>> {
    if let Some(f) = fn_of(e) {
        return Some(f);
    }
    match e.get_inner_expression() {
        Expression::Identifier(id) => locals.get(id.name.as_str()).copied(),
        _ => None,
    }
}

/// The functions a hook factory of this file returns, when `e` calls one
/// (`on('x', reword('text'))` with `const reword = (t) => async ($, e, next) => …`).
pub(super) fn made_by<'e, 'a>(
    locals: &HashMap<&'e str, FnRef<'e, 'a>>,
    e: &'e Expression<'a>,
) -> Vec<FnRef<'e, 'a>> {
    let Expression::CallExpression(call) = e.get_inner_expression() else {
        return Vec::new();
    };
    let Expression::Identifier(id) = call.callee.get_inner_expression() else {
        return Vec::new();
    };
    let Some(factory) = locals.get(id.name.as_str()).copied() else {
        return Vec::new();
    };
    let expression_body = matches!(factory, FnRef::Arrow(a) if a.expression);
    factory
        .body_statements()
        .iter()
        .filter_map(|stmt| match stmt {
            Statement::ReturnStatement(r) => r.argument.as_ref().and_then(fn_of),
            Statement::ExpressionStatement(x) if expression_body => fn_of(&x.expression),
            _ => None,
        })
        .collect()
}
