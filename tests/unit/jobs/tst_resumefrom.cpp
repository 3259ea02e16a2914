// Where an attempt starts (core/jobs/resumefrom.h): the trainer's --resume words and back.
#include "core/jobs/resumefrom.h"
#include "testmain.h"

#include <QTest>

using namespace torchdeck;

class TestResumeFrom : public QObject {
    Q_OBJECT
private slots:
    void words_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("kind");
        QTest::addColumn<bool>("path");
        QTest::addRow("as specified") << "" << int(ResumeFrom::Kind::AsSpecified) << false;
        QTest::addRow("latest") << "auto" << int(ResumeFrom::Kind::Latest) << false;
        QTest::addRow("scratch") << "none" << int(ResumeFrom::Kind::Scratch) << false;
        QTest::addRow("a path") << "/w/runs/r/ckpt/step-9 .pt" << int(ResumeFrom::Kind::Checkpoint) << true;
        QTest::addRow("a step") << "128" << int(ResumeFrom::Kind::Checkpoint) << false;
        QTest::addRow("a file name") << "step-128.pt" << int(ResumeFrom::Kind::Checkpoint) << false;
    }
    void words()
    {
        QFETCH(QString, text);
        QFETCH(int, kind);
        QFETCH(bool, path);
        const ResumeFrom from = ResumeFrom::fromText(text);
        QCOMPARE(int(from.kind()), kind);
        QCOMPARE(from.isCheckpointPath(), path);
        QCOMPARE(from.text(), text);
        QCOMPARE(ResumeFrom::fromText(from.text()), from);
    }
};

TORCHDECK_TEST_MAIN(TestResumeFrom)
#include "tst_resumefrom.moc"
