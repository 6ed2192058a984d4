//! Caps hit whatever the JavaScript caught (SPEC §6 "Limits"): every `catch` clause
//! of a mod's compiled code first hands what it caught to the bridge's
//! [`CAUGHT_HOOK`], and a `try` with only a `finally` gains a `catch` that does the same
//! and throws it on, so a hook that hits the memory or stack cap and swallows the
//! engine's error still crashes its worker. The bridge wraps `Promise.prototype.then`'s
//! rejection handlers (and so `.catch`, `Promise.allSettled` and the rest) the same way.
//!
//! What the mod may not name: every binding and reference that starts with
//! [`RESERVED_PREFIX`] (a local of that name would shadow the hook).

use oxc::allocator::Allocator;
use oxc::ast::ast::{
    BindingIdentifier, BindingPatternKind, CatchClause, IdentifierReference, Program, Statement,
    TryStatement, VariableDeclarationKind,
};
use oxc::ast::{AstBuilder, NONE};
use oxc::ast_visit::{walk_mut, VisitMut};
use oxc::span::{Span, SPAN};

/// What every name the instrumentation adds starts with; a mod's own names may not.
pub(crate) const RESERVED_PREFIX: &str = "__secDefault";
/// The global function (non-writable, non-configurable, set by the bridge) every
/// `catch` calls with what it caught.
pub(crate) const CAUGHT_HOOK: &str = "__secDefaultCaught";
/// The parameter a `catch` without one (or with a destructuring one) is given.
const CAUGHT_PARAM: &str = "__secDefaultError";

/// Instruments `program` in place; the first of the mod's own names that starts with
/// [`RESERVED_PREFIX`], as its span and the name, if any (the program is then not fit
/// to run).
pub(crate) fn instrument<'a>(
    allocator: &'a Allocator,
    program: &mut Program<'a>,
) -> Option<(Span, String)> {
    let mut v = Instrument {
        ast: AstBuilder::new(allocator),
        reserved: None,
    };
    v.visit_program(program);
    v.reserved
}

struct Instrument<'a> {
    ast: AstBuilder<'a>,
    reserved: Option<(Span, String)>,
}

impl<'a> Instrument<'a> {
    fn note(&mut self, span: Span, name: &str) {
        if self.reserved.is_none() && name.starts_with(RESERVED_PREFIX) {
            self.reserved = Some((span, name.to_owned()));
        }
    }

    /// `__secDefaultCaught(<name>);`
    fn tell(&self, name: &'a str) -> Statement<'a> {
        let ast = self.ast;
        let call = ast.expression_call(
            SPAN,
            ast.expression_identifier(SPAN, CAUGHT_HOOK),
            NONE,
            ast.vec1(ast.expression_identifier(SPAN, name).into()),
            false,
        );
        ast.statement_expression(SPAN, call)
    }

    fn param(&self) -> oxc::ast::ast::CatchParameter<'a> {
        let ast = self.ast;
        ast.catch_parameter(
            SPAN,
            ast.binding_pattern(
                ast.binding_pattern_kind_binding_identifier(SPAN, CAUGHT_PARAM),
                NONE,
                false,
            ),
        )
    }

    /// `catch (e) { B }` → `catch (e) { tell(e); B }`; `catch { B }` and
    /// `catch ({a}) { B }` → `catch (E) { tell(E); [let {a} = E;] B }`.
    fn instrument_catch(&self, clause: &mut CatchClause<'a>) {
        let ast = self.ast;
        let simple = clause.param.as_ref().and_then(|p| match &p.pattern.kind {
            BindingPatternKind::BindingIdentifier(id) => Some(id.name.as_str()),
            _ => None,
        });
        let mut head = ast.vec();
        if let Some(name) = simple {
            head.push(self.tell(name));
        } else {
            let old = clause.param.replace(self.param());
            head.push(self.tell(CAUGHT_PARAM));
            if let Some(old) = old {
                let decl = ast.variable_declarator(
                    SPAN,
                    VariableDeclarationKind::Let,
                    old.pattern,
                    Some(ast.expression_identifier(SPAN, CAUGHT_PARAM)),
                    false,
                );
                head.push(Statement::VariableDeclaration(
                    ast.alloc_variable_declaration(
                        SPAN,
                        VariableDeclarationKind::Let,
                        ast.vec1(decl),
                        false,
                    ),
                ));
            }
        }
        let body = &mut clause.body.body;
        let rest = std::mem::replace(body, ast.vec());
        head.extend(rest);
        *body = head;
    }
}

impl<'a> VisitMut<'a> for Instrument<'a> {
    fn visit_binding_identifier(&mut self, it: &mut BindingIdentifier<'a>) {
        self.note(it.span, it.name.as_str());
    }

    fn visit_identifier_reference(&mut self, it: &mut IdentifierReference<'a>) {
        self.note(it.span, it.name.as_str());
    }

    fn visit_try_statement(&mut self, it: &mut TryStatement<'a>) {
        // The mod's own names first (the added ones are reserved).
        walk_mut::walk_try_statement(self, it);
        match &mut it.handler {
            Some(clause) => self.instrument_catch(clause),
            None => {
                let ast = self.ast;
                let body = ast.vec_from_array([
                    self.tell(CAUGHT_PARAM),
                    ast.statement_throw(SPAN, ast.expression_identifier(SPAN, CAUGHT_PARAM)),
                ]);
                it.handler = Some(ast.alloc_catch_clause(
                    SPAN,
                    Some(self.param()),
                    ast.alloc_block_statement(SPAN, body),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxc::codegen::Codegen;
    use oxc::parser::Parser;
    use oxc::span::SourceType;

    fn run(src: &str) -> (String, Option<(Span, String)>) {
        let allocator = Allocator::default();
        let parsed = Parser::new(&allocator, src, SourceType::mjs()).parse();
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        let mut program = parsed.program;
        let reserved = instrument(&allocator, &mut program);
        (Codegen::new().build(&program).code, reserved)
    }

    fn squash(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn every_kind_of_catch_tells_the_bridge_first() {
        let cases = [
            (
                "try { a() } catch (e) { b(e) }",
                "try { a(); } catch (e) { __secDefaultCaught(e); b(e); }",
            ),
            (
                "try { a() } catch { b() }",
                "try { a(); } catch (__secDefaultError) { __secDefaultCaught(__secDefaultError); b(); }",
            ),
            (
                "try { a() } catch ({ message }) { b(message) }",
                "try { a(); } catch (__secDefaultError) { __secDefaultCaught(__secDefaultError); let { message } = __secDefaultError; b(message); }",
            ),
            (
                "try { a() } finally { return 1 }",
                "try { a(); } catch (__secDefaultError) { __secDefaultCaught(__secDefaultError); throw __secDefaultError; } finally { return 1; }",
            ),
        ];
        for (src, want) in cases {
            let src = format!("function f() {{ {src} }}");
            let (out, reserved) = run(&src);
            assert_eq!(reserved, None);
            assert_eq!(
                squash(&out),
                squash(&format!("function f() {{ {want} }}")),
                "{src}"
            );
        }
    }

    #[test]
    fn nested_trys_are_each_instrumented() {
        let (out, _) = run("try { try { a() } catch (x) {} } catch (y) { try {} finally {} }");
        assert_eq!(out.matches(CAUGHT_HOOK).count(), 3, "{out}");
    }

    #[test]
    fn a_mod_may_not_name_what_the_instrumentation_adds() {
        for src in [
            "let __secDefaultCaught = () => {};",
            "function __secDefaultCaught() {}",
            "import { x as __secDefaultCaught } from './y';",
            "try {} catch (__secDefaultError) {}",
            "__secDefaultCaught = 1;",
        ] {
            let (_, reserved) = run(src);
            let (span, name) = reserved.unwrap_or_else(|| panic!("{src}: not refused"));
            assert!(name.starts_with(RESERVED_PREFIX), "{src}");
            assert_eq!(&src[span.start as usize..span.end as usize], name, "{src}");
        }
        assert_eq!(run("globalThis.__secDefaultCaught;").1, None);
    }
}
