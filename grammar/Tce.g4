// Tce.g4 — the .tce language: index ranges, index variables, tensors,
// contraction statements and an optional machine block. The C++ parser is
// generated from this file at build time (grammar/CMakeLists.txt).
//
// Only the shape of the language lives here; meaning (declared names, ranks,
// units, sizes) is checked in frontend/sema.cpp so that every mistake gets a
// specific diagnostic instead of a generic syntax error.
grammar Tce;

program      : item* EOF ;

item         : rangeDecl
             | symmetryDecl
             | indexDecl
             | tensorDecl
             | machineBlock
             | distributeDecl
             | statement
             ;

// range O = 10, V = 30;   range O = 10 irreps (3, 0, 1, 1);
// (`irreps` is checked in frontend/sema.cpp: spatial orbitals per irrep of the point group)
rangeDecl    : RANGE rangeDef (',' rangeDef)* ';' ;
rangeDef     : ID '=' MINUS? INT (irrepsWord=ID '(' INT (',' INT)* ')')? ;

// symmetry c2v;   symmetry d2h restricted;
symmetryDecl : SYMMETRY group=ID shell=ID? ';' ;

// index h1, h2 : O;
indexDecl    : INDEX ID (',' ID)* ':' ID ';' ;

// tensor t[V,V,O,O] input;   tensor A[N,N] input, B[N,N] input;   tensor f[O,V] input upper 1 irrep 2;
// (a role: input | output | intermediate, and symmetry attributes: upper N, irrep N, dense;
// checked in sema)
tensorDecl   : TENSOR tensorDef (',' tensorDef)* ';' ;
tensorDef    : ID '[' idList? ']' tensorAttr* ;
tensorAttr   : word=ID value=INT? ;

// distribute A[i,k] over (i, k);   distribute C[i,j] over (i, j) grid (2, 4);
// (`over` and `grid` are checked in frontend/sema.cpp, so they stay usable as names)
distributeDecl : DISTRIBUTE tensorRef over=ID '(' idList ')' (gridWord=ID '(' INT (',' INT)* ')')? ';' ;

// machine osc { processors 4; memory 64 MB; network 200 MB/s; }
machineBlock : MACHINE name=ID? '{' machineProp* '}' ;
machineProp  : key=ID value=number unit? ';' ;
unit         : ID ('/' ID)? ;

// r[p1,p2,h1,h2] += -1/2 * t[p1,p2,h1,h3] * f[h3,h2];
statement    : result=tensorRef assignOp rhs ';' ;
assignOp     : ASSIGN | PLUS_ASSIGN | MINUS_ASSIGN ;
rhs          : sign=(PLUS | MINUS)? (coefficient '*')? tensorRef ('*' tensorRef)* ;
coefficient  : numerator=number ('/' denominator=number)? ;
number       : INT | DECIMAL ;
tensorRef    : ID '[' idList? ']' ;
idList       : ID (',' ID)* ;

RANGE        : 'range' ;
INDEX        : 'index' ;
TENSOR       : 'tensor' ;
MACHINE      : 'machine' ;
SYMMETRY     : 'symmetry' ;
DISTRIBUTE   : 'distribute' ;

PLUS_ASSIGN  : '+=' ;
MINUS_ASSIGN : '-=' ;
ASSIGN       : '=' ;
PLUS         : '+' ;
MINUS        : '-' ;

ID           : [a-zA-Z_] [a-zA-Z_0-9]* ;
DECIMAL      : ( [0-9]+ '.' [0-9]* | '.' [0-9]+ ) ( [eE] [+-]? [0-9]+ )?
             | [0-9]+ [eE] [+-]? [0-9]+ ;
INT          : [0-9]+ ;

HASH_COMMENT  : '#' ~[\r\n]* -> skip ;
SLASH_COMMENT : '//' ~[\r\n]* -> skip ;
WS            : [ \t\r\n\f]+ -> skip ;

// Anything else is reported by the frontend as an invalid character.
INVALID      : . ;
